"""Alembic environment: migrate the connection the app hands over, or the configured URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection, create_engine

from app.models import Base
from app.settings import Settings

config = context.config
target_metadata = Base.metadata


def _run(connection: Connection) -> None:
    # render_as_batch: SQLite cannot ALTER most things; batch mode copies the table instead.
    context.configure(connection=connection, target_metadata=target_metadata, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    engine = create_engine(config.get_main_option("sqlalchemy.url") or Settings().resolved_database_url())
    with engine.begin() as connection:
        _run(connection)
    engine.dispose()


if context.is_offline_mode():
    url = config.get_main_option("sqlalchemy.url") or Settings().resolved_database_url()
    context.configure(url=url, target_metadata=target_metadata)
    with context.begin_transaction():
        context.run_migrations()
else:
    run_online()
