"""The migrations build exactly the schema the models describe, on SQLite and on PostgreSQL."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text

from app.db import alembic_config, make_engine, upgrade
from app.models import Base


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


def test_the_client_address_column_is_added_to_existing_submissions_and_removed_on_downgrade(
    empty_database: str,
) -> None:
    config = alembic_config(empty_database)
    command.upgrade(config, "0002")
    engine = make_engine(empty_database)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO learners (id, created_at) VALUES ('l1', CURRENT_TIMESTAMP)"))
        connection.execute(
            text(
                "INSERT INTO submissions (id, learner_id, exercise, code, status, created_at) "
                "VALUES ('s1', 'l1', 'kv', 'x = 1', 'pass', CURRENT_TIMESTAMP)"
            )
        )
    upgrade(engine)
    columns = {c["name"] for c in inspect(engine).get_columns("submissions")}
    indexes = {i["name"] for i in inspect(engine).get_indexes("submissions")}
    assert "client_key" in columns and "ix_submissions_client_created" in indexes
    with engine.connect() as connection:
        # Rows from before the upgrade have no address: they count only towards their learner's limit.
        assert connection.execute(text("SELECT id, client_key FROM submissions")).all() == [("s1", None)]
    command.downgrade(config, "0002")
    assert "client_key" not in {c["name"] for c in inspect(engine).get_columns("submissions")}
    with engine.connect() as connection:
        assert connection.execute(text("SELECT id FROM submissions")).scalars().all() == ["s1"]
    engine.dispose()


def test_learners_submissions_and_progress_survive_the_accounts_and_courses_revision(empty_database: str) -> None:
    config = alembic_config(empty_database)
    command.upgrade(config, "0003")
    engine = make_engine(empty_database)
    with engine.begin() as connection:
        connection.execute(text("INSERT INTO learners (id, created_at) VALUES ('l1', CURRENT_TIMESTAMP)"))
        connection.execute(
            text(
                "INSERT INTO submissions (id, learner_id, exercise, code, status, created_at, client_key) "
                "VALUES ('s1', 'l1', 'kv', 'x = 1', 'pass', CURRENT_TIMESTAMP, 'k')"
            )
        )
        connection.execute(
            text("INSERT INTO progress (learner_id, exercise, solved_at, submission_id) VALUES ('l1', 'kv', "
                 "CURRENT_TIMESTAMP, 's1')")
        )  # fmt: skip
    upgrade(engine)
    tables = set(inspect(engine).get_table_names())
    assert {"users", "auth_sessions", "login_attempts", "courses", "course_exercises", "enrollments"} <= tables
    with engine.connect() as connection:
        # The version a submission from before was graded against is unknown; it is no regrade.
        rows = connection.execute(text("SELECT id, learner_id, exercise_version, regrade_of FROM submissions")).all()
        assert rows == [("s1", "l1", None, None)]
        assert connection.execute(text("SELECT learner_id, submission_id FROM progress")).all() == [("l1", "s1")]
    command.downgrade(config, "0003")
    assert "users" not in set(inspect(engine).get_table_names())
    with engine.connect() as connection:
        assert connection.execute(text("SELECT id FROM submissions")).scalars().all() == ["s1"]
        assert connection.execute(text("SELECT learner_id FROM progress")).scalars().all() == ["l1"]
    engine.dispose()
