"""The image alone: ``docker run -p 8000:8000 IMAGE``, with the embedded queue and SQLite.

Run bare, the image must refuse to start, naming the settings it needs (it would serve pages and
fail every grade). Run with exactly the line that refusal prints (``app.monitoring.health.SINGLE_CONTAINER_RUN``,
also in the README and docs/deployment.md), it must serve and grade.
"""

from __future__ import annotations

import shlex
import time

import httpx

from app.monitoring.health import SINGLE_CONTAINER_RUN
from deploy.audit import Audit
from deploy.engine import Engine
from deploy.learner import Learner
from deploy.solutions import reference
from deploy.stack import free_port, wait_for

IMAGE = "mlkata:latest"
NAME = "mlkata-deploy-test-single"
VOLUME = "mlkata-deploy-test-single-data"


def documented_options(line: str = SINGLE_CONTAINER_RUN) -> list[str]:
    """The options of the documented ``docker run`` line, without its port, volume and image."""
    words = shlex.split(line)
    assert words[:2] == ["docker", "run"], line
    options: list[str] = []
    index = 2
    while index < len(words) - 1:  # the last word is the image
        word = words[index]
        if word in ("-p", "-v"):
            index += 2
            continue
        options.append(word)
        index += 1
    return options


def _reason(said: str) -> str:
    """The refusal's reason: what its first line says in parentheses."""
    line = next((line for line in said.splitlines() if line.startswith("error:")), "")
    return line[line.find("(", line.find("does not work")) :][:240] if "does not work" in line else line[:240]


def remove(engine: Engine) -> None:
    engine("rm", "-f", "-v", NAME, check=False, timeout=120)
    engine("volume", "rm", "-f", VOLUME, check=False)


def leftovers(engine: Engine) -> list[str]:
    found = [NAME] if engine("container", "exists" if engine.name == "podman" else "inspect", NAME,
                             check=False).returncode == 0 else []  # fmt: skip
    if engine("volume", "inspect", VOLUME, check=False).returncode == 0:
        found.append(VOLUME)
    return found


def test_single_container(engine: Engine, audit: Audit) -> None:
    started = time.monotonic()
    bare = engine("run", "--rm", IMAGE, check=False, timeout=180)
    said = bare.stderr + bare.stdout
    audit.check(
        "bare `run IMAGE` refuses to start and says what to add",
        bare.returncode == 2 and "--cap-add SYS_ADMIN" in said and "--user root" in said,
        f"exit {bare.returncode}: {_reason(said)}",
        time.monotonic() - started,
    )
    port = free_port()
    started = time.monotonic()
    engine(
        "run", "-d", "--name", NAME, "-p", f"127.0.0.1:{port}:8000", *documented_options(),
        "-v", f"{VOLUME}:/var/lib/mlkata", IMAGE,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        state = engine("inspect", "--format", "{{.State.Running}}", NAME, check=False).stdout.strip()
        if state != "true":
            raise RuntimeError(f"the single container stopped: {engine('logs', '--tail', '5', NAME).stderr[-600:]}")
        try:
            response = httpx.get(f"{url}/healthz", timeout=5)
        except httpx.TransportError:
            return False
        sandbox = response.json().get("components", {}).get("sandbox", {}) if response.status_code == 200 else {}
        return sandbox.get("warm_pool") == "started"

    try:
        wait_for(healthy, "the single container's /healthz", 120)
    except RuntimeError:
        print(engine("logs", "--tail", "40", NAME, check=False).stderr[-4000:])
        raise
    audit.check(
        "the documented `run` line serves: /healthz 200 with the warm pool started",
        True,
        f"options: {' '.join(documented_options())}",
        time.monotonic() - started,
    )
    learner = Learner(url)
    try:
        graded = learner.grade(reference())
    finally:
        learner.close()
    audit.check(
        "alone (embedded queue, SQLite): the reference graded through HTTP passes",
        graded.status == "pass",
        f"{graded.status} ({graded.reason})",
        graded.seconds,
    )
