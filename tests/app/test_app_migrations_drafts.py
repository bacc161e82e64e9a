"""Revision 0008: the drafts table, added beside existing learners and removed on a downgrade, on SQLite and on
PostgreSQL."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect, text

from app.db import alembic_config, make_engine, upgrade


def test_drafts_start_empty_beside_existing_learners_and_go_on_a_downgrade(empty_database: str) -> None:
    config = alembic_config(empty_database)
    command.upgrade(config, "0007")
    engine = make_engine(empty_database)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO learners (id, created_at) VALUES ('l1', CURRENT_TIMESTAMP)"))
    upgrade(engine)
    assert "drafts" in inspect(engine).get_table_names()
    with engine.begin() as connection:
        assert connection.execute(text("SELECT count(*) FROM drafts")).scalar_one() == 0
        connection.execute(
            text(
                "INSERT INTO drafts (learner_id, exercise, field, text, revision, saved_at, created_at) "
                "VALUES ('l1', 'kv', 'code', 'x = 1', 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
    command.downgrade(config, "0007")
    assert "drafts" not in inspect(engine).get_table_names()
    with engine.connect() as connection:
        assert connection.execute(text("SELECT id FROM learners")).scalars().all() == ["l1"]
    engine.dispose()
