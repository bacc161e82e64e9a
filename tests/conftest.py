"""Fixtures shared by every test folder: the real exercises, small exercises made on the spot, and services."""

from __future__ import annotations

import os
import subprocess
import textwrap
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NoReturn

import pytest
import redis
from sqlalchemy import create_engine, make_url
from sqlalchemy import text as sql
from sqlalchemy.exc import OperationalError

from grader.exercise import Exercise, load_exercise

REPO_ROOT = Path(__file__).resolve().parent.parent
EXERCISES_DIR = REPO_ROOT / "exercises"
_CHECKOUT_BEFORE = pytest.StashKey[dict[str, tuple[str, int, int]] | None]()
KV_SLUG = "kv-cache-decoding"

ADDER_TOML = """\
title = "Add two numbers"
section = "Warm-ups"
difficulty = "easy"
tags = ["arithmetic"]

[[functions]]
name = "add"
params = ["a", "b"]
returns = "int"

[limits]
time_seconds = {time_seconds}

[hints]
plus = "Use the + operator."
"""

ADDER_CHECKS = """\
from grader.checks import check
from grader.checks import expect_integer


@check("Adds small numbers", public=True, hint="plus")
def small_numbers(student):
    expect_integer(student.add(2, 3), 5, what="add(2, 3)")


@check("Adds huge numbers exactly")
def huge_numbers(student):
    expect_integer(student.add(10**30, 1), 10**30 + 1, what="the sum of two huge numbers")
"""

ADDER_FILES = {
    "statement.md": "Write `add(a, b)`, returning $a + b$.\n",
    "starter.py": "def add(a, b):\n    raise NotImplementedError\n",
    "reference.py": "def add(a, b):\n    return a + b\n",
    "checks.py": ADDER_CHECKS,
}


@pytest.fixture(scope="session", autouse=True)
def user_cache_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The authoring tools' cache (``MLKATA_CACHE_DIR``) in a temporary folder, for this process and every process
    it starts: tests never read or fill the user's cache, nor leave files in the checkout."""
    folder = tmp_path_factory.mktemp("user-cache")
    before = os.environ.get("MLKATA_CACHE_DIR")
    os.environ["MLKATA_CACHE_DIR"] = str(folder)
    yield folder
    if before is None:
        del os.environ["MLKATA_CACHE_DIR"]
    else:
        os.environ["MLKATA_CACHE_DIR"] = before


@pytest.fixture(scope="session")
def kv_exercise() -> Exercise:
    """The real KV-cache exercise, as shipped."""
    return load_exercise(EXERCISES_DIR / KV_SLUG)


@pytest.fixture
def make_exercise(tmp_path: Path) -> Callable[..., Path]:
    """Write a small exercise folder ("add two numbers" unless files are overridden); return its path."""

    def make(slug: str = "adder", time_seconds: float = 5, files: dict[str, str] | None = None) -> Path:
        folder = tmp_path / "exercises" / slug
        folder.mkdir(parents=True)
        contents = {"exercise.toml": ADDER_TOML.format(time_seconds=time_seconds), **ADDER_FILES, **(files or {})}
        for name, text in contents.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        return folder

    return make


@pytest.fixture
def adder(make_exercise: Callable[..., Path]) -> Exercise:
    return load_exercise(make_exercise())


# -- PostgreSQL and Redis, for the tests marked ``services`` ---------------------------------------------------

#: Where the test services are; a test session creates (and drops) its own databases and uses its own key prefix.
POSTGRES_URL = os.environ.get("MLKATA_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
REDIS_URL = os.environ.get("MLKATA_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def service_missing(what: str, why: object) -> NoReturn:
    """Fail when ``CI`` is set (a CI job must never pass by skipping), else skip saying what is missing."""
    message = f"{what} is unreachable ({why}); tests marked 'services' need it"
    if os.environ.get("CI"):
        pytest.fail(f"{message}, and CI is set", pytrace=False)
    pytest.skip(f"{message}: start it, or run pytest -m 'not services'")


class PostgresDatabases:
    """Makes uniquely named databases on the test server and drops them all at the end of the session."""

    def __init__(self, admin_url: str) -> None:
        self.admin_url = make_url(admin_url)
        self.prefix = f"mlkata_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
        self.created: list[str] = []
        self._engine = create_engine(self.admin_url, isolation_level="AUTOCOMMIT", pool_pre_ping=True)

    def check(self) -> None:
        with self._engine.connect() as connection:
            connection.execute(sql("SELECT 1"))

    def create(self) -> str:
        name = f"{self.prefix}_{len(self.created) + 1}"
        with self._engine.connect() as connection:
            connection.execute(sql(f'CREATE DATABASE "{name}"'))
        self.created.append(name)
        return self.admin_url.set(database=name).render_as_string(hide_password=False)

    def drop_all(self) -> None:
        with self._engine.connect() as connection:
            for name in self.created:
                connection.execute(sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        self._engine.dispose()


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[PostgresDatabases]:
    databases = PostgresDatabases(POSTGRES_URL)
    try:
        databases.check()
    except OperationalError as exc:
        service_missing(f"PostgreSQL at {databases.admin_url.render_as_string()}", exc.orig or exc)
    yield databases
    databases.drop_all()


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The shared Redis: tests use their own key prefix (``redis_prefix``) and never flush it."""
    client = redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError as exc:
        service_missing(f"Redis at {REDIS_URL}", exc)
    finally:
        client.close()
    return REDIS_URL


@pytest.fixture
def redis_prefix(redis_url: str) -> Iterator[str]:
    """A key prefix no other test or session uses; its keys are deleted afterwards."""
    prefix = f"mlkata-test-{uuid.uuid4().hex[:12]}"
    yield prefix
    client = redis.Redis.from_url(redis_url)
    keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
    if keys:
        client.delete(*keys)
    client.close()


@pytest.fixture(scope="session")
def require_service() -> Callable[[str, object], NoReturn]:
    """:func:`service_missing`, for conftest files of sub-folders (which cannot import this module)."""
    return service_missing


# -- a run leaves the checkout as it found it -------------------------------------------------------------------


def _checkout_state() -> dict[str, tuple[str, int, int]] | None:
    """Each path ``git status`` lists (untracked ones included): its status, size and mtime; None outside git."""
    try:
        listed = subprocess.run(
            ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"],
            cwd=REPO_ROOT, capture_output=True, check=True, timeout=60,
        ).stdout.decode()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    state = {}
    for entry in filter(None, listed.split("\0")):
        path = REPO_ROOT / entry[3:]
        try:
            stat = path.lstat()
            state[entry[3:]] = (entry[:2], stat.st_size, stat.st_mtime_ns)
        except OSError:
            state[entry[3:]] = (entry[:2], -1, -1)
    return state


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # once, in the process that runs or dispatches the tests
        session.config.stash[_CHECKOUT_BEFORE] = _checkout_state()


def pytest_sessionfinish(session: pytest.Session) -> None:
    before = session.config.stash.get(_CHECKOUT_BEFORE, None)
    after = _checkout_state() if before is not None else None
    if before is None or after is None:
        return
    changed = sorted(path for path, state in after.items() if before.get(path) != state)
    if changed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("")
            reporter.write_line(f"The run left files in the checkout (untracked or modified): {changed}", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
