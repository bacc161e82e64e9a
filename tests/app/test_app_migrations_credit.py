"""Revision 0006: the time a run was credited to its learner, on SQLite and on PostgreSQL."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text

from app.db import alembic_config, make_engine, upgrade


def test_runs_from_before_count_from_when_they_were_made_and_survive_a_downgrade(empty_database: str) -> None:
    config = alembic_config(empty_database)
    command.upgrade(config, "0005")
    engine = make_engine(empty_database)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO learners (id, created_at) VALUES ('l1', CURRENT_TIMESTAMP)"))
        connection.execute(
            text(
                "INSERT INTO submissions (id, learner_id, exercise, code, status, created_at, kind) "
                "VALUES ('s1', 'l1', 'kv', 'x = 1', 'pass', CURRENT_TIMESTAMP, 'grade')"
            )
        )
    command.upgrade(config, "0006")
    assert "credited_at" in {c["name"] for c in inspect(engine).get_columns("submissions")}
    with engine.connect() as connection:
        # Empty: the run counts from when it was made, as it did before the revision.
        assert connection.execute(text("SELECT id, credited_at FROM submissions")).all() == [("s1", None)]
    upgrade(engine)  # and on to the newest revision
    command.downgrade(config, "0005")
    assert "credited_at" not in {c["name"] for c in inspect(engine).get_columns("submissions")}
    with engine.connect() as connection:
        assert connection.execute(text("SELECT id, status FROM submissions")).all() == [("s1", "pass")]
    engine.dispose()
