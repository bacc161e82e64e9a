"""Fixtures for the tests that need PostgreSQL and Redis: a fresh database each, and a cluster of processes."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import Cluster

from app.db import make_engine, make_sessionmaker, upgrade


@pytest.fixture
def postgres_url(postgres_databases: Any) -> str:
    """A new, empty PostgreSQL database for this test."""
    return str(postgres_databases.create())


@pytest.fixture
def migrated(postgres_url: str) -> Iterator[Any]:
    """A sessionmaker on a fresh, migrated PostgreSQL database."""
    engine = make_engine(postgres_url)
    upgrade(engine)
    yield make_sessionmaker(engine)
    engine.dispose()


@pytest.fixture
def start_cluster(
    tmp_path: Path, postgres_url: str, require_service: Callable[[str, object], None]
) -> Iterator[Callable[..., Cluster]]:
    if shutil.which("redis-server") is None:
        require_service("redis-server (to start a private Redis)", "not installed")
    clusters: list[Cluster] = []

    def start(
        time_seconds: int,
        workers: int = 2,
        concurrency: int = 1,
        lease_seconds: float = 2.0,
        env: dict[str, str | None] | None = None,
    ) -> Cluster:
        cluster = Cluster(tmp_path, postgres_url, time_seconds=time_seconds, lease_seconds=lease_seconds, env=env)
        clusters.append(cluster)
        cluster.start(workers=workers, concurrency=concurrency)
        return cluster

    yield start
    for cluster in clusters:
        cluster.stop()
    for cluster in clusters:
        print(cluster.logs())  # shown when the test failed
