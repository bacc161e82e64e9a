"""``make deploy-test``: the Dockerfile and docker-compose.yml built, started and attacked for real.

``python -m deploy.main`` picks an engine (Docker where one runs, else podman, installed from
Debian's packages), makes the base images the Dockerfile and compose file name (official ones when
they can be pulled, else stand-ins built from Debian packages and tagged with the official names),
builds the image, runs it alone and as the compose stack, grades through HTTP as a browser does,
kills a worker mid-grade, restarts the stack, and removes every container, volume and network it
made, printing an audit of what was checked.

- ``deploy/engine.py``: the engine, its settings on this host (runtime, ulimits), running commands;
- ``deploy/standins.py``: the base images, and the stand-ins in ``deploy/standins/``;
- ``deploy/stack.py``: the compose project (up, health, kill, restart, teardown) and the database;
- ``deploy/learner.py``: a browser's requests (cookie jar, JSON submissions, following results);
- ``deploy/solutions.py``: what is submitted and what each must get;
- ``deploy/audit.py``: what was checked, with timings;
- ``deploy/main.py``: the scenario.
"""
