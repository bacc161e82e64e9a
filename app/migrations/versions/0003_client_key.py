"""The keyed hash of each submission's client address, for the per-address rate limit

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Rows from before this revision keep NULL: they count towards their learner's limit only.
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("client_key", sa.String(length=32), nullable=True))
        batch_op.create_index("ix_submissions_client_created", ["client_key", "created_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_client_created")
        batch_op.drop_column("client_key")
