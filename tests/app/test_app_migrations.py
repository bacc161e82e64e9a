"""The migrations build exactly the schema the models describe, on SQLite and on PostgreSQL."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from app.db import make_engine, upgrade
from app.models import Base


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.services)])
def empty_database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'm.db'}"
    databases: Any = request.getfixturevalue("postgres_databases")
    return str(databases.create())


def test_upgrade_creates_the_tables_and_matches_the_models(empty_database: str) -> None:
    engine = make_engine(empty_database)
    upgrade(engine)
    upgrade(engine)  # a second start-up finds nothing to do
    assert {"learners", "submissions", "submission_events", "progress", "alembic_version"} <= set(
        inspect(engine).get_table_names()
    )
    with engine.connect() as connection:
        assert compare_metadata(MigrationContext.configure(connection), Base.metadata) == []
    engine.dispose()
