"""What a submission asks for (a graded run or a try on the learner's own inputs), and a try's inputs

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every submission before this revision was a graded run.
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("kind", sa.String(length=8), nullable=False, server_default="grade"))
        batch_op.add_column(sa.Column("inputs", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_column("inputs")
        batch_op.drop_column("kind")
