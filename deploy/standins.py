"""The base images the Dockerfile and compose file name: the official ones, or faithful stand-ins.

Which images are needed is read from the files themselves (the Dockerfile's ``FROM`` lines that are
not its own stages, and compose's ``image:`` of services it does not build). Each is used as it is
when present (or when ``pull`` fetches it); otherwise a stand-in is built from
``deploy/standins/<name>.Containerfile`` on a Debian 12 base made with debootstrap, and tagged with
the official name, so the Dockerfile and compose file are used unchanged. Stand-ins carry a label
with a fingerprint of their sources and base, so a later run reuses them until one changes; the
debootstrap'd root file system is kept as a tarball in the cache.

``MLKATA_DEPLOY_TEST_BASES``: ``auto`` (the default: official when present or pullable, else a
stand-in), ``standin`` (never pull) or ``official`` (pull, and fail without them).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml

from deploy.engine import CACHE, REPO, Engine, ensure_packages, run

STANDINS = REPO / "deploy" / "standins"
LABEL = "org.mlkata.deploy-test.standin"
BASE = "localhost/mlkata-deploy-test/debian:bookworm"
ROOTFS = CACHE / "debian-bookworm-minbase.tar"
MIRROR = os.environ.get("MLKATA_DEPLOY_TEST_MIRROR", "http://deb.debian.org/debian")
SOURCES = (
    "deb http://deb.debian.org/debian bookworm main\n"
    "deb http://deb.debian.org/debian bookworm-updates main\n"
    "deb http://deb.debian.org/debian-security bookworm-security main\n"
)


def qualified(image: str) -> str:
    """Docker Hub's full name for a short one: ``redis:7`` -> ``docker.io/library/redis:7``."""
    name, _, tag = image.partition(":")
    if "/" not in name:
        name = f"library/{name}"
    if "." not in name.split("/")[0] and name.split("/")[0] != "localhost":
        name = f"docker.io/{name}"
    return f"{name}:{tag or 'latest'}"


def base_images(dockerfile: str, compose: dict[str, object]) -> list[str]:
    """The images the files build from or run, fully qualified, in order of first mention."""
    found: list[str] = []
    stages: set[str] = set()
    for line in dockerfile.splitlines():
        words = line.split()
        if not words or words[0].upper() != "FROM":
            continue
        image = next(word for word in words[1:] if not word.startswith("--"))
        if image not in stages:
            found.append(qualified(image))
        if len(words) >= 4 and words[-2].upper() == "AS":
            stages.add(words[-1])
    services = compose.get("services")
    for service in services.values() if isinstance(services, dict) else []:
        if isinstance(service, dict) and "build" not in service and "image" in service:
            found.append(qualified(str(service["image"])))
    return list(dict.fromkeys(found))


def containerfile(image: str) -> Path:
    """``docker.io/library/postgres:16`` -> ``deploy/standins/postgres.Containerfile``."""
    repository = image.rsplit(":", 1)[0].rsplit("/", 1)[-1]
    return STANDINS / f"{repository}.Containerfile"


def fingerprint(image: str, base_id: str) -> str:
    """The stand-in's sources (its Containerfile and the scripts beside it) and the base it builds on."""
    digest = hashlib.sha256(base_id.encode())
    repository = containerfile(image).name.removesuffix(".Containerfile")
    for path in sorted(STANDINS.glob(f"{repository}*")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _image_id(engine: Engine, image: str) -> str | None:
    found = engine("image", "inspect", "--format", "{{.Id}}", image, check=False)
    if found.returncode != 0:
        return None
    return found.stdout.strip() or None


def _label(engine: Engine, image: str) -> str | None:
    found = engine("image", "inspect", "--format", f'{{{{ index .Config.Labels "{LABEL}" }}}}', image, check=False)
    value = found.stdout.strip()
    return value if found.returncode == 0 and value not in ("", "<no value>") else None


def _base(engine: Engine, say: Callable[[str], None]) -> str:
    """The Debian 12 base image (imported from the cached root file system), its id."""
    found = _image_id(engine, BASE)
    if found:
        return found
    if not ROOTFS.is_file():
        ensure_packages("debootstrap=debootstrap")
        say(f"debootstrap bookworm (minbase) from {MIRROR} into {ROOTFS}")
        CACHE.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=CACHE) as scratch:
            root = Path(scratch) / "rootfs"
            run(["debootstrap", "--variant=minbase", "bookworm", str(root), MIRROR], timeout=1200)
            (root / "etc" / "apt" / "sources.list").write_text(SOURCES)
            shutil.rmtree(root / "var" / "cache" / "apt" / "archives", ignore_errors=True)
            (root / "var" / "cache" / "apt" / "archives" / "partial").mkdir(parents=True)
            partial = ROOTFS.with_suffix(".partial")
            run(["tar", "-C", str(root), "-cf", str(partial), "."], timeout=600)
            partial.rename(ROOTFS)
    say(f"import {ROOTFS.name} as {BASE}")
    engine("import", "--change", 'CMD ["bash"]', str(ROOTFS), BASE, timeout=600)
    found = _image_id(engine, BASE)
    assert found, BASE
    return found


def ensure_bases(engine: Engine, say: Callable[[str], None]) -> dict[str, str]:
    """Every base image present under its official name; image -> where it came from."""
    mode = os.environ.get("MLKATA_DEPLOY_TEST_BASES", "auto")
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    wanted = base_images((REPO / "Dockerfile").read_text(), compose)
    origin: dict[str, str] = {}
    to_build: list[str] = []
    for image in wanted:
        label = _label(engine, image)
        if _image_id(engine, image) and label is None and mode != "standin":
            origin[image] = "official (present)"
        elif mode != "standin" and engine("pull", "--quiet", image, check=False, timeout=600).returncode == 0:
            origin[image] = "official (pulled)"
        elif mode == "official":
            raise RuntimeError(f"{image} cannot be pulled, and MLKATA_DEPLOY_TEST_BASES=official")
        else:
            to_build.append(image)
    if not to_build:
        return origin
    base_id = _base(engine, say)
    stale = [image for image in to_build if _label(engine, image) != fingerprint(image, base_id)]
    for image in to_build:
        origin[image] = "stand-in (built)" if image in stale else "stand-in (cached)"
    if stale:
        say(f"building stand-ins from Debian packages: {', '.join(stale)}")

    def build(image: str) -> None:
        engine(
            "build", *engine.build_options, "--label", f"{LABEL}={fingerprint(image, base_id)}",
            "-f", str(containerfile(image)), "-t", image, str(STANDINS), timeout=1800,
        )  # fmt: skip

    with ThreadPoolExecutor(max_workers=2) as pool:  # apt downloads overlap; two cores build
        for future in [pool.submit(build, image) for image in stale]:
            future.result()
    return origin


def extra_ca_bundle(
    directory: Path = Path("/usr/local/share/ca-certificates"), bundle: Path = CACHE / "extra-ca.pem"
) -> Path | None:
    """The host's extra CA certificates as one PEM file (for ``--secret id=extra_ca``), or None without any."""
    certificates = sorted(directory.glob("**/*.crt")) if directory.is_dir() else []
    if not certificates:
        return None
    bundle.parent.mkdir(parents=True, exist_ok=True)
    bundle.write_text("".join(path.read_text().rstrip("\n") + "\n" for path in certificates))
    return bundle
