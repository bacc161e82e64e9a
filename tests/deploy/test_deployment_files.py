"""The Dockerfile and docker-compose.yml, checked without a container engine.

Nothing is built or started here (``make deploy-test`` builds and runs both). What is checked: the
compose file parses and names only images it builds or official ones; every command a container
runs is a real ``mlkata`` command with real options; every environment variable is a setting;
the Debian packages exist; the health check asks a real route that answers 200; the image holds
every package pyproject installs and every folder the app reads at run time.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from setuptools import find_packages
from typer.testing import CliRunner

from app import main as app_main
from app.cli import app as cli_app
from app.settings import Settings
from grader.exercise import DEFAULT_EXERCISES

REPO = Path(__file__).resolve().parents[2]
OFFICIAL_IMAGES = {"redis:7", "postgres:16"}
#: Docker Hub official images the Dockerfile builds from.
OFFICIAL_BASES = {"node", "python"}


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with continuation lines joined and comment lines dropped."""
    instructions: list[tuple[str, str]] = []
    pending = ""
    for raw in (REPO / "Dockerfile").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("#") or (not line and not pending):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        pending += line
        keyword, _, rest = pending.partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
        pending = ""
    return instructions


def instruction_args(name: str) -> list[str]:
    return [args for keyword, args in dockerfile_instructions() if keyword == name]


def exec_form(args: str) -> list[str]:
    """The command of CMD/ENTRYPOINT/HEALTHCHECK CMD: JSON exec form, else shell words."""
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError:
        return shlex.split(args)
    assert isinstance(parsed, list) and all(isinstance(item, str) for item in parsed)
    return parsed


def compose() -> dict[str, Any]:
    document = yaml.safe_load((REPO / "docker-compose.yml").read_text(encoding="utf-8"))
    assert isinstance(document, dict)
    return document


def interpolate(value: str) -> str:
    """Compose's ``${VAR:-default}``, ``${VAR:?message}`` and ``${VAR}``, with every variable unset."""

    def replace(match: re.Match[str]) -> str:
        operator, argument = match.group(2), match.group(3)
        return argument if operator in (":-", "-") else "placeholder"

    return re.sub(r"\$\{(\w+)(?:(:?[-?])([^}]*))?\}", replace, value)


def service_command(service: dict[str, Any]) -> list[str]:
    command = service.get("command")
    if command is None:
        keyword_args = instruction_args("CMD")
        return exec_form(keyword_args[-1])
    words = command if isinstance(command, list) else shlex.split(command)
    return [interpolate(str(word)) for word in words]


def assert_real_mlkata_command(command: list[str]) -> None:
    """``command`` starts with ``mlkata``, names a real subcommand and only options it has."""
    assert command[0] == "mlkata", command
    result = CliRunner().invoke(cli_app, [*command[1:], "--help"])
    assert result.exit_code == 0, f"{' '.join(command)}: {result.output}"
    assert "Usage: mlkata" in " ".join(result.output.split())


def test_compose_runs_web_worker_redis_and_postgres_from_built_or_official_images() -> None:
    services = compose()["services"]
    assert set(services) == {"web", "worker", "redis", "postgres"}
    built = {service["image"] for service in services.values() if "build" in service}
    assert built == {"mlkata:latest"}
    for name, service in services.items():
        image = service.get("image")
        assert image in built | OFFICIAL_IMAGES, f"{name} uses {image}"


def test_dockerfile_builds_only_from_official_images_or_its_own_stages() -> None:
    stages: set[str] = set()
    for args in instruction_args("FROM"):
        words = args.split()
        image = words[0]
        if image not in stages:
            repository = image.split(":")[0]
            assert "/" not in repository and repository in OFFICIAL_BASES, image
        if len(words) == 3 and words[1].upper() == "AS":
            stages.add(words[2])
    assert len(stages) >= 2, "a front-end stage and an app stage"


@pytest.mark.parametrize("service", ["web", "worker"])
def test_every_mlkata_container_runs_a_real_mlkata_command(service: str) -> None:
    assert_real_mlkata_command(service_command(compose()["services"][service]))


def test_the_image_runs_mlkata_serve_by_default_under_tini() -> None:
    assert exec_form(instruction_args("ENTRYPOINT")[-1]) == ["/usr/bin/tini", "--"]
    command = exec_form(instruction_args("CMD")[-1])
    assert command[:2] == ["mlkata", "serve"]
    assert_real_mlkata_command(command)


def test_the_worker_health_check_reads_the_healthz_the_worker_serves() -> None:
    worker = compose()["services"]["worker"]
    command = service_command(worker)
    port = command[command.index("--metrics-port") + 1]
    test = " ".join(worker["healthcheck"]["test"])
    assert f"http://127.0.0.1:{port}/healthz" in test


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_the_dockerfile_health_check_asks_a_route_that_answers_200(tmp_path: Path) -> None:
    (healthcheck,) = instruction_args("HEALTHCHECK")
    urls = re.findall(r"http://127\.0\.0\.1:(\d+)(/[\w/-]*)", healthcheck)
    assert urls, healthcheck
    port, path = urls[0]
    command = exec_form(instruction_args("CMD")[-1])
    assert command[command.index("--port") + 1] == port
    # The image's own command, on a free port, with a fresh data dir and the embedded queue.
    command[command.index("--port") + 1] = str(free_port())
    command[command.index("--host") + 1] = "127.0.0.1"
    environment = {key: value for key, value in os.environ.items() if not key.startswith("MLKATA_")}
    environment.update(MLKATA_DATA_DIR=str(tmp_path / "data"), MLKATA_WORKERS="0")
    mlkata = str(Path(sys.executable).with_name("mlkata"))
    url = f"http://127.0.0.1:{command[command.index('--port') + 1]}{path}"
    server = subprocess.Popen([mlkata, *command[1:]], env=environment, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                response = httpx.get(url, timeout=5)
                break
            except httpx.TransportError:
                assert server.poll() is None and time.monotonic() < deadline, "mlkata serve did not start"
                time.sleep(0.1)
        assert response.status_code == 200, response.text
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_compose_sets_only_real_settings() -> None:
    prefix = Settings.model_config.get("env_prefix", "")
    known = {prefix + name.upper() for name in Settings.model_fields}
    for name, service in compose()["services"].items():
        for variable in service.get("environment") or {}:
            if variable.startswith(prefix):
                assert variable in known, f"{name} sets {variable}, which is not a setting"
    dockerfile_env = " ".join(instruction_args("ENV"))
    for variable in re.findall(rf"\b({prefix}\w+)=", dockerfile_env):
        assert variable in known, f"the Dockerfile sets {variable}, which is not a setting"


def test_compose_gives_web_and_worker_the_same_database_queue_and_key() -> None:
    services = compose()["services"]
    for variable in ("MLKATA_DATABASE_URL", "MLKATA_REDIS_URL", "MLKATA_SECRET_KEY"):
        assert services["web"]["environment"][variable] == services["worker"]["environment"][variable]
    assert services["web"]["environment"]["MLKATA_DATABASE_URL"].startswith("postgresql+psycopg://")


def test_workers_scale_no_fixed_name_or_host_port_and_share_uid_locks() -> None:
    document = compose()
    worker = document["services"]["worker"]
    assert "container_name" not in worker and "ports" not in worker
    assert "uid-locks:/run/mlkata-uids" in worker["volumes"]
    for service in document["services"].values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            assert source in document["volumes"], f"{volume} is not a named volume"


def test_the_web_process_is_unprivileged_and_the_worker_gets_only_the_sandbox_permissions() -> None:
    assert instruction_args("USER")[-1] not in ("root", "0")
    services = compose()["services"]
    assert services["web"]["cap_drop"] == ["ALL"] and "cap_add" not in services["web"]
    assert "user" not in services["web"]
    worker = services["worker"]
    assert worker["user"] == "root"
    assert worker["cap_drop"] == ["ALL"]
    assert set(worker["cap_add"]) == {"SYS_ADMIN", "NET_ADMIN", "SETUID", "SETGID", "SETPCAP", "KILL", "SYS_NICE"}
    assert "privileged" not in worker
    assert {"apparmor=unconfined", "systempaths=unconfined"} <= set(worker["security_opt"])


def test_services_wait_for_what_they_need_to_be_healthy() -> None:
    services = compose()["services"]
    for name in ("redis", "postgres", "worker"):
        assert "healthcheck" in services[name]
    assert services["web"]["depends_on"] == {
        "postgres": {"condition": "service_healthy"},
        "redis": {"condition": "service_healthy"},
    }
    assert services["worker"]["depends_on"] == services["web"]["depends_on"]


def apt_packages() -> list[str]:
    packages: list[str] = []
    for args in instruction_args("RUN"):
        for match in re.finditer(r"apt-get install((?:\s+[^&;|]+)+)", args):
            packages += [word for word in match.group(1).split() if not word.startswith("-")]
    return packages


def test_the_dockerfile_installs_the_sandboxs_debian_packages() -> None:
    assert {"bubblewrap", "util-linux", "libseccomp2", "tini"} <= set(apt_packages())


@pytest.mark.parametrize("package", apt_packages())
def test_each_debian_package_the_dockerfile_installs_exists(package: str) -> None:
    # The image is Debian 12 (bookworm), as are the machines these tests run on.
    if shutil.which("apt-cache") is None:
        if os.environ.get("CI"):
            pytest.fail("apt-cache is missing: the Debian package names cannot be checked")
        pytest.skip("apt-cache is missing (not a Debian-like system)")
    result = subprocess.run(["apt-cache", "show", package], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and f"Package: {package}" in result.stdout, result.stderr


def copied_sources() -> set[str]:
    """The build-context paths COPY takes (not those copied from another stage), without trailing slashes."""
    sources: set[str] = set()
    for args in instruction_args("COPY"):
        words = args.split()
        if any(word.startswith("--from") for word in words):
            continue
        sources |= {word.rstrip("/") for word in words[:-1] if not word.startswith("--")}
    return sources


def test_the_image_holds_every_package_pyproject_installs_and_what_the_app_reads() -> None:
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    include = pyproject["tool"]["setuptools"]["packages"]["find"]["include"]
    top_level = {name.split(".")[0] for name in find_packages(where=str(REPO), include=include)}
    assert top_level >= {"app", "grader", "runner"}
    copied = copied_sources()
    missing = top_level - copied
    assert not missing, f"the Dockerfile does not copy {sorted(missing)}"
    read_at_run_time = [app_main.TEMPLATES_DIR, DEFAULT_EXERCISES, REPO / "static" / "favicon.svg"]
    for path in read_at_run_time:
        assert path.relative_to(REPO).as_posix() in copied, f"the Dockerfile does not copy {path}"
    # pip installs the project from pyproject.toml, which names README.md as its readme.
    assert {"pyproject.toml", pyproject["project"]["readme"]} <= copied
    frontend = [args for args in instruction_args("COPY") if "--from=frontend" in args]
    assert frontend and app_main.STATIC_DIST.relative_to(REPO).as_posix() in frontend[0]


def test_dockerignore_keeps_out_secrets_and_builds_but_nothing_the_dockerfile_copies() -> None:
    patterns = [
        line.strip()
        for line in (REPO / ".dockerignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    for must_ignore in (".git", ".venv", "node_modules", "static/dist", "data", ".env"):
        assert must_ignore in patterns
    for source in copied_sources():
        parts = Path(source).parts
        prefixes = ["/".join(parts[: index + 1]) for index in range(len(parts))]
        for pattern in patterns:
            assert not any(fnmatch.fnmatch(prefix, pattern) for prefix in prefixes), f"{pattern} hides {source}"
