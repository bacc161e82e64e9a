"""The compose project: started as compose starts it, watched, attacked, restarted and removed.

Everything made here carries the project's name (``mlkata-deploy-test``) and compose's project label,
and :meth:`Stack.remove` removes exactly those containers, volumes and networks. Services with
``condition: service_healthy`` start after their dependencies are healthy: docker compose waits
itself, podman-compose does only with podman 4.6 or newer, so the stack is brought up in the same
two steps either way (the dependencies, their health, then the rest). Podman without systemd runs no
health-check timers: :meth:`healthy` runs each container's own check (``podman healthcheck run``),
as the timer would.
"""

from __future__ import annotations

import json
import secrets
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import httpx

from deploy.engine import Engine, run

PROJECT = "mlkata-deploy-test"
DEPENDENCIES = ("redis", "postgres")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(ready: Callable[[], bool], what: str, seconds: float, every: float = 1.0) -> float:
    """Poll until ``ready()``; the seconds it took. ``RuntimeError`` past ``seconds``."""
    started = time.monotonic()
    while not ready():
        if time.monotonic() - started > seconds:
            raise RuntimeError(f"{what}: not ready after {seconds:.0f} s")
        time.sleep(every)
    return time.monotonic() - started


@dataclass
class Stack:
    engine: Engine
    workers: int = 2
    project: str = PROJECT
    port: int = field(default_factory=free_port)
    secrets_env: dict[str, str] = field(
        default_factory=lambda: {
            "MLKATA_SECRET_KEY": secrets.token_urlsafe(32),
            "POSTGRES_PASSWORD": secrets.token_urlsafe(24),
        }
    )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def label(self) -> str:
        return f"com.docker.compose.project={self.project}"

    def compose(self, *args: str, timeout: float = 600, check: bool = True) -> str:
        env = {**self.engine.env, **self.secrets_env, "MLKATA_PORT": str(self.port)}
        return run(self.engine.compose_command(self.project, *args), env=env, timeout=timeout, check=check).stdout

    # --- containers --------------------------------------------------------------------------------

    def containers(self, service: str | None = None, *, running_only: bool = True) -> list[str]:
        """Names of the project's containers (of one service), sorted."""
        filters = ["--filter", f"label={self.label}"]
        if service:
            filters += ["--filter", f"label=com.docker.compose.service={service}"]
        listed = self.engine("ps", *([] if running_only else ["-a"]), *filters, "--format", "{{.Names}}")
        return sorted(name for name in listed.stdout.split() if name)

    def inspect(self, container: str) -> dict[str, object]:
        found = json.loads(self.engine("inspect", container).stdout)
        return found[0] if isinstance(found, list) else found

    def exec(self, container: str, *command: str, timeout: float = 120) -> str:
        return self.engine("exec", container, *command, timeout=timeout).stdout

    def healthy(self, container: str) -> bool:
        if self.engine.name == "podman":
            return self.engine("healthcheck", "run", container, check=False, timeout=60).returncode == 0
        state = self.inspect(container).get("State", {})
        health = state.get("Health", {}) if isinstance(state, dict) else {}
        return isinstance(health, dict) and health.get("Status") == "healthy"

    def all_healthy(self, service: str, count: int = 1) -> bool:
        names = self.containers(service)
        return len(names) == count and all(self.healthy(name) for name in names)

    def web_ready(self) -> bool:
        try:
            return httpx.get(f"{self.url}/healthz", timeout=5).status_code == 200
        except httpx.TransportError:
            return False

    # --- the whole stack ---------------------------------------------------------------------------

    def up(self) -> dict[str, float]:
        """Start the stack as compose would, and wait for every container's health; seconds per step."""
        timings: dict[str, float] = {}
        started = time.monotonic()
        self.compose("up", "-d", *DEPENDENCIES)
        wait_for(lambda: all(self.all_healthy(name) for name in DEPENDENCIES), "redis and postgres", 120, 2)
        # pg_isready answers through the socket while the entry point's initdb server runs; the real
        # server is the one listening on TCP.
        (postgres,) = self.containers("postgres")
        tcp = ["pg_isready", "-h", "127.0.0.1", "-U", "mlkata", "-d", "mlkata"]
        wait_for(lambda: self.engine("exec", postgres, *tcp, check=False).returncode == 0, "postgres on TCP", 60)
        timings["redis and postgres healthy"] = time.monotonic() - started
        self.compose("up", "-d", "--scale", f"worker={self.workers}")
        wait_for(self.web_ready, "web /healthz", 120)
        timings["web healthy"] = time.monotonic() - started
        wait_for(lambda: self.all_healthy("worker", self.workers), f"{self.workers} workers healthy", 180, 2)
        timings[f"{self.workers} workers healthy"] = time.monotonic() - started
        return timings

    def oom_kills(self, container: str) -> int | None:
        """How many processes the kernel's OOM killer killed in the container's own cgroup (v2 or v1)."""
        files = ("/sys/fs/cgroup/memory.events", "/sys/fs/cgroup/memory/memory.oom_control")
        said = self.engine("exec", container, "cat", *files, check=False).stdout
        counts = [int(line.split()[1]) for line in said.splitlines() if line.startswith("oom_kill ")]
        return sum(counts) if counts else None

    def down(self, *, volumes: bool) -> list[str]:
        """``compose down`` (``-v``: with the volumes), then whatever it left of the project.

        podman-compose's ``down`` removes one container per service: scaled replicas stay behind.
        """
        names = self.containers(running_only=False)
        try:
            self.compose("down", *(["-v"] if volumes else []), "-t", "10", timeout=300, check=False)
        finally:
            left = self.remove(volumes=volumes)
        return [*names, *left]

    def remove(self, *, volumes: bool = True) -> list[str]:
        """Remove the project's containers (and its volumes and networks): what was removed."""
        removed: list[str] = []
        names = self.containers(running_only=False)
        if names:
            extra = ["--depend"] if self.engine.name == "podman" else []
            self.engine("rm", "-f", "-v", *extra, *names, check=False, timeout=300)
            removed += names
        if volumes:
            listed = self.engine("volume", "ls", "-q", "--filter", f"label={self.label}", check=False)
            found = listed.stdout.split()
            if found:
                self.engine("volume", "rm", "-f", *found, check=False)
                removed += found
            listed = self.engine("network", "ls", "-q", "--filter", f"label={self.label}", check=False)
            networks = [name for name in listed.stdout.split() if name]
            default = f"{self.project}_default"
            if self.engine("network", "exists" if self.engine.name == "podman" else "inspect", default,
                           check=False).returncode == 0:  # fmt: skip
                networks.append(default)
            for network in dict.fromkeys(networks):
                self.engine("network", "rm", "-f", network, check=False)
                removed.append(network)
        return removed

    def leftovers(self) -> list[str]:
        """What of the project still exists (nothing, after :meth:`remove`)."""
        found = self.containers(running_only=False)
        found += self.engine("volume", "ls", "-q", "--filter", f"label={self.label}", check=False).stdout.split()
        found += [
            name
            for name in self.engine("network", "ls", "--format", "{{.Name}}", check=False).stdout.split()
            if name.startswith(self.project)
        ]
        return found

    # --- the database, as the postgres container sees it -------------------------------------------

    def sql(self, query: str, **variables: str) -> list[list[str]]:
        """Rows of ``query`` run by psql in the postgres container; ``:'name'`` in it quotes a variable."""
        (postgres,) = self.containers("postgres")
        assigned = [option for name, value in variables.items() for option in ("-v", f"{name}={value}")]
        said = self.engine(
            "exec", "-i", postgres, "psql", "-U", "mlkata", "-d", "mlkata", "-v", "ON_ERROR_STOP=1", "-AtF", "\t",
            *assigned, "-f", "-", input_bytes=query.encode(), timeout=60,
        ).stdout  # fmt: skip
        return [line.split("\t") for line in said.splitlines() if line]

    def worker_of(self, consumer: str) -> str | None:
        """The worker container whose process is ``consumer`` (``worker:<hostname>:<pid>:<random>``)."""
        hostname = consumer.split(":")[1] if consumer.count(":") >= 2 else ""
        for name in self.containers("worker"):
            config = self.inspect(name).get("Config", {})
            if isinstance(config, dict) and config.get("Hostname") == hostname:
                return name
        return None
