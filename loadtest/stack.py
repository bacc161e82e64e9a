"""The system under load: a private redis-server, a fresh PostgreSQL database, mlkata serve and workers.

Everything listens on 127.0.0.1 and on ports picked free; the machine's own Redis is never used.
Each process is one this module started, and only those are stopped or killed.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import psycopg
from psycopg import sql

POSTGRES_ADMIN_URL = os.environ.get("LOADTEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/postgres")
#: Settings the load run lifts, for these processes only: learners here submit far faster than people do, and
#: all of them from 127.0.0.1; the queue bound and the limits must not turn them away. The per-address login
#: limits go the way of the per-address submission limit: every learner signs up and in from one address
#: (the per-account limit on failed sign-ins stays as it is), and so does the hashing queue, where an address
#: holds a quarter of the places.
LIFTED_LIMITS = {
    "MLKATA_RATE_LIMIT": "1000000",
    "MLKATA_RATE_LIMIT_PER_ADDRESS": "1000000",
    "MLKATA_MAX_QUEUE": "100000",
    "MLKATA_SIGNUPS_PER_ADDRESS": "1000000",
    "MLKATA_LOGIN_ATTEMPTS_PER_ADDRESS": "1000000",
    "MLKATA_HASHING_QUEUE": "100000",
}


class ServiceMissing(RuntimeError):
    """PostgreSQL or redis-server is not there; the load test cannot run."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(ready: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            raise RuntimeError(f"{what} did not become ready in {seconds:.0f} s")
        time.sleep(0.05)


def mlkata_executable() -> str:
    """The ``mlkata`` script beside this interpreter (the project's virtualenv)."""
    path = Path(sys.executable).with_name("mlkata")
    if not path.is_file():
        raise RuntimeError(f"{path} is missing: run `make install` first")
    return str(path)


def has_worker_command() -> bool:
    """Whether this checkout has ``mlkata worker`` (the scale-out topology)."""
    result = subprocess.run([mlkata_executable(), "worker", "--help"], capture_output=True, check=False)
    return result.returncode == 0


class PrivateRedis:
    """A redis-server of our own on a free port, keeping nothing on disk (like the machine's Redis)."""

    def __init__(self, workdir: Path) -> None:
        executable = shutil.which("redis-server")
        if executable is None:
            raise ServiceMissing("redis-server is not installed (Debian: apt-get install redis-server)")
        self.executable, self.workdir = executable, workdir
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None
        self.start()

    def start(self) -> None:
        # The child keeps its own copy of the log's descriptor; ours closes at once.
        with (self.workdir / "redis.log").open("ab") as log:
            self.process = subprocess.Popen(
                [self.executable, "--bind", "127.0.0.1", "--port", str(self.port), "--save", "", "--appendonly", "no",
                 "--dir", str(self.workdir), "--protected-mode", "yes"],
                stdout=log, stderr=subprocess.STDOUT,
            )  # fmt: skip
        wait_until(self._answers, f"redis-server on port {self.port}")

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                conn.sendall(b"PING\r\n")
                return conn.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: everything in it (the queue's stream) is gone, as after a crash."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


class FreshDatabase:
    """A new PostgreSQL database for one run, dropped afterwards."""

    def __init__(self, admin_url: str = POSTGRES_ADMIN_URL) -> None:
        self.admin_url = admin_url
        self.name = f"mlkata_load_{secrets.token_hex(4)}"
        try:
            with psycopg.connect(admin_url, autocommit=True, connect_timeout=5) as conn:
                conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(self.name)))
        except psycopg.OperationalError as exc:
            raise ServiceMissing(f"PostgreSQL is not reachable at {admin_url}: {exc}") from None
        base = psycopg.conninfo.conninfo_to_dict(admin_url)
        user = base.get("user") or "postgres"
        host, port = base.get("host") or "127.0.0.1", base.get("port") or "5432"
        self.url = f"postgresql+psycopg://{user}@{host}:{port}/{self.name}"
        self.libpq_url = f"postgresql://{user}@{host}:{port}/{self.name}"

    def drop(self) -> None:
        with psycopg.connect(self.admin_url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(self.name)))


@dataclass
class MlkataProcess:
    """One ``mlkata serve`` or ``mlkata worker`` process, restartable with the same arguments."""

    name: str
    args: list[str]
    env: dict[str, str]
    log_path: Path
    process: subprocess.Popen[bytes] | None = field(default=None)

    def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [mlkata_executable(), *self.args], env=self.env, stdout=log, stderr=subprocess.STDOUT
            )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no clean-up, as when a machine or a container dies."""
        if self.alive():
            assert self.process is not None
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self, timeout: float = 30.0) -> None:
        """SIGTERM, then SIGKILL if it does not end in ``timeout`` seconds."""
        if self.alive():
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.kill()


class Stack:
    """The whole system: database, queue, one web process and ``workers`` worker processes."""

    def __init__(
        self,
        workdir: Path,
        exercises_dir: Path,
        *,
        workers: int,
        concurrency: int,
        scale_out: bool,
    ) -> None:
        self.workdir, self.scale_out = workdir, scale_out
        self.database = FreshDatabase()
        self.redis: PrivateRedis | None = None
        self.web: MlkataProcess | None = None
        self.workers: list[MlkataProcess] = []
        try:
            env = {key: value for key, value in os.environ.items() if not key.startswith("MLKATA_")}
            env.update(
                MLKATA_DATABASE_URL=self.database.url,
                MLKATA_DATA_DIR=str(workdir / "data"),
                MLKATA_SECRET_KEY=secrets.token_urlsafe(32),
                MLKATA_EXERCISES_DIR=str(exercises_dir),
                **LIFTED_LIMITS,
            )
            if scale_out:
                self.redis = PrivateRedis(workdir)
                env["MLKATA_REDIS_URL"] = self.redis.url
                env["MLKATA_WORKERS"] = "0"
            else:
                # Before the worker command existed: the web process grades in-process.
                env["MLKATA_WORKERS"] = str(workers * concurrency)
            self.env = env
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}"
            self.web = MlkataProcess(
                "web", ["serve", "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "warning"],
                env, workdir / "web.log",
            )  # fmt: skip
            self.start_web()
            if scale_out:
                for index in range(workers):
                    worker = MlkataProcess(
                        f"worker-{index + 1}", ["worker", "--concurrency", str(concurrency)], env,
                        workdir / f"worker-{index + 1}.log",
                    )  # fmt: skip
                    worker.start()
                    self.workers.append(worker)
        except BaseException:
            self.close()
            raise

    def start_web(self) -> None:
        assert self.web is not None
        self.web.start()
        wait_until(self._web_answers, "mlkata serve", seconds=60)

    def _web_answers(self) -> bool:
        assert self.web is not None
        if not self.web.alive():
            raise RuntimeError(f"mlkata serve exited; see {self.web.log_path}")
        try:
            return httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    def restart_web(self) -> None:
        assert self.web is not None
        self.web.stop()
        self.start_web()

    def restart_redis(self) -> None:
        assert self.redis is not None
        self.redis.kill()
        self.redis.start()

    def close(self) -> None:
        for process in [*self.workers, *([self.web] if self.web else [])]:
            process.stop(timeout=20)
        if self.redis is not None:
            self.redis.stop()
        self.database.drop()
