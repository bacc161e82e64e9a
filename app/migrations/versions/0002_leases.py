"""Leases, claim counts and event counters, for workers in other processes

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("last_event_seq", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("attempts", sa.Integer(), server_default="0", nullable=False))
        batch_op.add_column(sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("worker_id", sa.String(length=100), nullable=True))
        batch_op.add_column(sa.Column("queue_ref", sa.String(length=64), nullable=True))
        batch_op.create_index("ix_submissions_status_created", ["status", "created_at"], unique=False)
    # Rows from before this revision: continue numbering after their last event.
    op.execute(
        "UPDATE submissions SET last_event_seq = COALESCE("
        "(SELECT MAX(seq) FROM submission_events WHERE submission_events.submission_id = submissions.id), 0)"
    )


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_status_created")
        batch_op.drop_column("queue_ref")
        batch_op.drop_column("worker_id")
        batch_op.drop_column("lease_until")
        batch_op.drop_column("attempts")
        batch_op.drop_column("last_event_seq")
