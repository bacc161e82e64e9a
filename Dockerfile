# syntax=docker/dockerfile:1
# One image for every role: `mlkata serve` (the default command) or `mlkata worker`.
# Build: docker build -t mlkata .      Deployment and the worker's sandbox settings: docs/deployment.md
# Behind a TLS-intercepting proxy, give its CA certificates (PEM, one file) as a build secret; they are
# trusted by npm and pip during the build and kept out of the image:
#   docker build --secret id=extra_ca,src=/usr/local/share/ca-certificates/proxy.crt -t mlkata .

# --- Front end: the editor bundle, style sheet, fonts and Swagger UI under static/dist -------------
# Only the dependencies the bundle is built from: the devDependencies are the checks (tsc, Biome, axe-core).
FROM node:20-bookworm-slim AS frontend
WORKDIR /src
COPY package.json package-lock.json ./
RUN --mount=type=secret,id=extra_ca \
    if [ -s /run/secrets/extra_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/extra_ca; fi \
    && npm ci --omit=dev --no-audit --no-fund
COPY static/ static/
RUN node static/build.mjs

# --- Python: the app, the grader and the runner, with the sandbox's system packages ---------------
FROM python:3.11-slim-bookworm AS app

# bubblewrap is the sandbox; util-linux gives prlimit and setpriv; libseccomp2 is what pyseccomp
# loads to build the seccomp filter; libpq5 serves psycopg when it is not the binary build; tini
# reaps the processes a grading run leaves to pid 1.
RUN apt-get update \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
        bubblewrap util-linux libseccomp2 libpq5 tini \
    && rm -rf /var/lib/apt/lists/*

# A multi-threaded process cannot unshare a user namespace: numpy's thread pools stay single-threaded.
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    OPENBLAS_NUM_THREADS=1 \
    OMP_NUM_THREADS=1 \
    MKL_NUM_THREADS=1 \
    VIRTUAL_ENV=/opt/venv \
    PATH=/opt/venv/bin:$PATH \
    MLKATA_DATA_DIR=/var/lib/mlkata \
    MLKATA_EXERCISES_DIR=/opt/mlkata/exercises

# The pinned dependencies first, read from pyproject.toml, so code changes do not reinstall them.
WORKDIR /opt/mlkata
COPY pyproject.toml ./
RUN --mount=type=secret,id=extra_ca \
    if [ -s /run/secrets/extra_ca ]; then \
        cat /etc/ssl/certs/ca-certificates.crt /run/secrets/extra_ca > /tmp/ca-bundle.pem \
        && export PIP_CERT=/tmp/ca-bundle.pem; \
    fi \
    && python -m venv /opt/venv \
    && python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install --requirement /tmp/requirements.txt \
    && rm -f /tmp/requirements.txt /tmp/ca-bundle.pem

# The packages pyproject installs (app, grader, runner), what they read at run time, and the bundle.
# Installed in place (editable): the app finds templates/, static/ and exercises/ beside app/.
COPY README.md alembic.ini ./
COPY app/ app/
COPY grader/ grader/
COPY runner/ runner/
COPY exercises/ exercises/
COPY templates/ templates/
COPY static/favicon.svg static/favicon.svg
COPY --from=frontend /src/static/dist/ static/dist/
RUN --mount=type=secret,id=extra_ca \
    if [ -s /run/secrets/extra_ca ]; then \
        cat /etc/ssl/certs/ca-certificates.crt /run/secrets/extra_ca > /tmp/ca-bundle.pem \
        && export PIP_CERT=/tmp/ca-bundle.pem; \
    fi \
    && pip install --no-deps --editable . \
    && rm -f /tmp/ca-bundle.pem \
    && useradd --system --uid 10001 --home-dir /var/lib/mlkata --shell /usr/sbin/nologin mlkata \
    && mkdir -p /var/lib/mlkata \
    && chown root:mlkata /var/lib/mlkata \
    && chmod 2770 /var/lib/mlkata
# The data dir (SQLite, the generated secret key) is the group mlkata's, and root's: both the web
# process (user mlkata) and the image run alone as root, which holds no CAP_DAC_OVERRIDE, write it.

# The web process runs unprivileged. The grader worker runs as root (`user: root` in compose):
# it drops every sandboxed run to a uid of its own (61000 and up) and needs extra container
# permissions for the sandbox's namespaces, listed in docs/deployment.md.
USER mlkata
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=4)"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["mlkata", "serve", "--host", "0.0.0.0", "--port", "8000"]
