"""Real processes on loopback: a private redis-server, `mlkata serve` and `mlkata worker`s, and an SSE reader."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import redis
from sqlalchemy import Engine, create_engine, text

from grader.exercise import mutant_source

REPO = Path(__file__).resolve().parents[2]
KV = REPO / "exercises" / "kv-cache-decoding"
SLUG = "kv-cache-decoding"
MLKATA = str(Path(sys.executable).parent / "mlkata")
#: How long a process may take to start: imports, migrations and the warm pool's first zygote take a
#: few seconds on a quiet machine and several times that on a loaded one.
_START_SECONDS = 90


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(condition: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def copy_exercise(root: Path, time_seconds: int) -> Path:
    """The KV-cache exercise under ``root`` with its own time limit."""
    shutil.copytree(KV, root / SLUG)
    toml = root / SLUG / "exercise.toml"
    toml.write_text(
        toml.read_text(encoding="utf-8").replace("time_seconds = 10", f"time_seconds = {time_seconds}"), "utf-8"
    )
    return root


def reference() -> str:
    return (KV / "reference.py").read_text(encoding="utf-8")


def mutant(name: str) -> str:
    return mutant_source(KV, name)


def hostile(name: str) -> str:
    return (REPO / "tests" / "redteam" / "submissions" / f"{name}.py").read_text(encoding="utf-8")


def sleeping(seconds: float, *, in_attend_step: bool = True, in_kv_cache_bytes: bool = False) -> str:
    """The reference solution, sleeping ``seconds`` in the first call of the chosen functions (so it is mid-grade)."""
    lines = [reference(), "", "import time as _time", ""]
    for name, chosen in (("attend_step", in_attend_step), ("kv_cache_bytes", in_kv_cache_bytes)):
        if chosen:
            lines += [
                f"_real_{name} = {name}",
                f"_slept_{name} = []",
                "",
                "",
                f"def {name}(*args):",
                f"    if not _slept_{name}:",
                f"        _slept_{name}.append(1)",
                f"        _time.sleep({seconds})",
                f"    return _real_{name}(*args)",
                "",
            ]
    return "\n".join(lines)


class PrivateRedis:
    """A redis-server of this test alone, keeping nothing on disk, that can be killed and started again."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.workdir,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=0.5)

        def answers() -> bool:
            try:
                return bool(client.ping())
            except redis.RedisError:
                return False

        wait_for(answers, 60, "redis-server to answer")
        client.close()

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.wait(timeout=10)
            self.process = None


class Service:
    """One `mlkata` subprocess, its output kept in a log file."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.name, self.args, self.env, self.log = name, args, env, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.process = subprocess.Popen([MLKATA, *self.args], env=self.env, stdout=out, stderr=out)

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        """SIGKILL: no chance to clean up."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it does not end."""
        self.ask_to_stop()
        self.wait_stopped()

    def ask_to_stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def wait_stopped(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()


class Cluster:
    """`mlkata serve` and workers against one PostgreSQL database and one private Redis."""

    def __init__(
        self,
        tmp: Path,
        database_url: str,
        *,
        time_seconds: int,
        lease_seconds: float = 2.0,
        env: dict[str, str | None] | None = None,
    ) -> None:
        """``env``: settings to change for every process (None: back to mlkata's default)."""
        self.tmp = tmp
        self.database_url = database_url
        self.redis = PrivateRedis(tmp)
        self.web_port = free_port()
        self.url = f"http://127.0.0.1:{self.web_port}"
        exercises = copy_exercise(tmp / "exercises", time_seconds)
        self.env = {
            **os.environ,
            "MLKATA_DATABASE_URL": database_url,
            "MLKATA_REDIS_URL": self.redis.url,
            "MLKATA_REDIS_PREFIX": "faults",
            "MLKATA_EXERCISES_DIR": str(exercises),
            "MLKATA_DATA_DIR": str(tmp / "data"),
            "MLKATA_SECRET_KEY": "test-secret-key-for-the-fault-tests",
            "MLKATA_LEASE_SECONDS": str(lease_seconds),
            "MLKATA_SWEEP_SECONDS": "0.5",
            "MLKATA_RATE_LIMIT": "1000",
            "MLKATA_RATE_LIMIT_PER_ADDRESS": "1000",
            "MLKATA_MAX_QUEUE": "200",
            "MLKATA_QUEUE_SHARE_PER_LEARNER": "1",
            "MLKATA_QUEUE_SHARE_PER_ADDRESS": "1",
            "MLKATA_LOG_FORMAT": "json",
            "OPENBLAS_NUM_THREADS": "1",
        }
        for name, value in (env or {}).items():
            if value is None:
                self.env.pop(name, None)
            else:
                self.env[name] = value
        self.web = Service("web", ["serve", "--port", str(self.web_port), "--log-level", "warning"], self.env,
                           tmp / "web.log")  # fmt: skip
        self.workers: list[Service] = []
        self.engine: Engine = create_engine(database_url)

    def start(self, workers: int = 2, concurrency: int = 1) -> None:
        self.redis.start()
        self.web.start()
        ports = []
        for index in range(workers):  # started together, then waited for: their start-ups overlap
            port = free_port()
            worker = Service(
                f"worker{index + 1}", ["worker", "--concurrency", str(concurrency), "--metrics-port", str(port)],
                self.env, self.tmp / f"worker{index + 1}.log",
            )  # fmt: skip
            worker.start()
            self.workers.append(worker)
            ports.append(port)
        for index, port in enumerate(ports):
            wait_for(lambda port=port: _warm(port), _START_SECONDS, f"worker {index + 1} to be ready")
        wait_for(lambda: _healthy(self.url), _START_SECONDS, "the web server to answer /healthz")

    def start_web(self) -> None:
        self.web.start()
        wait_for(lambda: _healthy(self.url), _START_SECONDS, "the web server to answer /healthz")

    def stop(self) -> None:
        # All asked at once: each worker finishes the run it holds, side by side rather than one after another.
        for service in [self.web, *self.workers]:
            service.ask_to_stop()
        for service in [self.web, *self.workers]:
            service.wait_stopped()
        self.redis.kill()
        self.engine.dispose()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in self.tmp.glob("*.log"))

    def client(self, cookies: dict[str, str] | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.url, timeout=30, cookies=cookies)

    # -- reading the database --------------------------------------------------------------------------------

    def rows(self, sql: str, **params: Any) -> list[Any]:
        with self.engine.connect() as connection:
            return list(connection.execute(text(sql), params))

    def submission(self, submission_id: str) -> Any:
        return self.rows(
            "SELECT status, attempts, worker_id, result FROM submissions WHERE id = :id", id=submission_id
        )[0]

    def events(self, submission_id: str) -> list[tuple[int, str]]:
        return [
            (seq, type_)
            for seq, type_ in self.rows(
                "SELECT seq, type FROM submission_events WHERE submission_id = :id ORDER BY seq, id", id=submission_id
            )
        ]


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/healthz", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _warm(port: int) -> bool:
    try:
        body = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).json()
    except (httpx.HTTPError, ValueError):
        return False
    return bool(body["components"]["sandbox"].get("warm_pool") == "started")


def submit(client: httpx.Client, code: str) -> dict[str, Any]:
    response = client.post(f"/api/exercises/{SLUG}/submissions", json={"code": code})
    assert response.status_code == 202, response.text
    return dict(response.json())


def stream_events(
    client: httpx.Client, url: str, last_event_id: str | None = None, timeout: float = 60
) -> Iterator[dict[str, Any]]:
    """Yield each server-sent event ({"id", "event", "data"}) as it arrives."""
    headers = {"Last-Event-ID": last_event_id} if last_event_id is not None else {}
    with client.stream("GET", url, headers=headers, timeout=timeout) as response:
        assert response.status_code == 200, response.read()
        current: dict[str, Any] = {}
        for line in response.iter_lines():
            if line == "":
                if "event" in current:
                    yield current
                current = {}
            elif not line.startswith(":"):
                field, _, value = line.partition(":")
                value = value.removeprefix(" ")
                current[field] = json.loads(value) if field == "data" else value
