"""Fixtures: settings on a temporary data dir, and real servers started from them.

Every test that makes settings runs twice: on SQLite (in the data dir) and on PostgreSQL (a database
of this test session, emptied before each test).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_support import RunningServer, copy_exercise
from sqlalchemy import inspect, text
from sqlalchemy.orm import Session, sessionmaker

from app.db import make_engine, make_sessionmaker, upgrade
from app.settings import Settings

TABLES = (
    "learners, submissions, submission_events, progress, users, auth_sessions, login_attempts, courses, "
    "course_exercises, enrollments, drafts"
)


@pytest.fixture(scope="session")
def postgres_app_database(postgres_databases: Any) -> str:
    return str(postgres_databases.create())


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.services)])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of an empty database: a SQLite file, or a new PostgreSQL database of this session."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.db'}"
    databases: Any = request.getfixturevalue("postgres_databases")
    return str(databases.create())


@pytest.fixture
def sessions(empty_database: str) -> Iterator[sessionmaker[Session]]:
    """Sessions on an empty database brought to the latest revision."""
    engine = make_engine(empty_database)
    upgrade(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.services)])
def database_url(request: pytest.FixtureRequest) -> str | None:
    """None for SQLite in the data dir (the default), else the session's PostgreSQL database, emptied."""
    if request.param == "sqlite":
        return None
    url = str(request.getfixturevalue("postgres_app_database"))
    engine = make_engine(url)
    with engine.begin() as connection:
        if inspect(connection).has_table("submissions"):
            connection.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
    engine.dispose()
    return url


@pytest.fixture
def exercises_dir(tmp_path: Path) -> Path:
    """A copy of the KV-cache exercise whose time limit is 2 s, so timeouts are quick to test."""
    return copy_exercise(tmp_path / "exercises")


@pytest.fixture
def make_settings(tmp_path: Path, exercises_dir: Path, database_url: str | None) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "data_dir": tmp_path / "data",
            "exercises_dir": exercises_dir,
            "workers": 2,
            "database_url": database_url,
        }
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]

    return make


@pytest.fixture
def start_server() -> Iterator[Callable[..., RunningServer]]:
    """Start a real server on these settings (and ``create_app`` options); stopped after the test."""
    servers: list[RunningServer] = []

    def start(settings: Settings, **app_options: Any) -> RunningServer:
        server = RunningServer(settings, **app_options)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def server(make_settings: Callable[..., Settings], start_server: Callable[[Settings], RunningServer]) -> RunningServer:
    return start_server(make_settings())


@pytest.fixture
def client(server: RunningServer) -> Iterator[httpx.Client]:
    with server.client() as c:
        yield c
