"""Drafts on the server: what each learner last typed into an exercise's editor and its Try it box

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-15
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Empty: drafts were kept in browsers until now, and a page brings its browser's own in (app.drafts).
    op.create_table(
        "drafts",
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("exercise", sa.String(length=100), nullable=False),
        sa.Column("field", sa.String(length=8), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("saved_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("client_key", sa.String(length=32), nullable=True),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("learner_id", "exercise", "field"),
    )
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.create_index("ix_drafts_client_created", ["client_key", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("drafts", schema=None) as batch_op:
        batch_op.drop_index("ix_drafts_client_created")
    op.drop_table("drafts")
