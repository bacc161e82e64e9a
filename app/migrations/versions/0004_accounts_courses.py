"""Accounts, sign-in sessions and attempts, courses, and each submission's exercise version and regrades

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("password_hash", sa.Text(), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=False),
        sa.Column("learner_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["learner_id"], ["learners.id"], ondelete="RESTRICT"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("email"),
        sa.UniqueConstraint("learner_id"),
    )
    op.create_table(
        "auth_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    with op.batch_alter_table("auth_sessions", schema=None) as batch_op:
        batch_op.create_index("ix_auth_sessions_user", ["user_id"], unique=False)
    op.create_table(
        "login_attempts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("account_key", sa.String(length=32), nullable=False),
        sa.Column("client_key", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("login_attempts", schema=None) as batch_op:
        batch_op.create_index("ix_login_attempts_account", ["account_key", "created_at"], unique=False)
        batch_op.create_index("ix_login_attempts_client", ["client_key", "created_at"], unique=False)
    op.create_table(
        "courses",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("owner_id", sa.String(length=36), nullable=False),
        sa.Column("join_code", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["owner_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("join_code"),
    )
    op.create_table(
        "course_exercises",
        sa.Column("course_id", sa.String(length=36), nullable=False),
        sa.Column("exercise", sa.String(length=100), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["course_id"], ["courses.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("course_id", "exercise"),
    )
    op.create_table(
        "enrollments",
        sa.Column("course_id", sa.String(length=36), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["course_id"], ["courses.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["user_id"], ["users.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("course_id", "user_id"),
    )
    with op.batch_alter_table("enrollments", schema=None) as batch_op:
        batch_op.create_index("ix_enrollments_user", ["user_id"], unique=False)
    # Submissions from before this revision keep NULL: the version they were graded against is unknown.
    with _keeping_progress_links(), op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.add_column(sa.Column("exercise_version", sa.String(length=16), nullable=True))
        batch_op.add_column(sa.Column("regrade_of", sa.String(length=36), nullable=True))
        batch_op.add_column(sa.Column("regrade_batch", sa.String(length=36), nullable=True))
        batch_op.create_foreign_key(
            "fk_submissions_regrade_of", "submissions", ["regrade_of"], ["id"], ondelete="CASCADE"
        )
        batch_op.create_index("ix_submissions_learner_exercise", ["learner_id", "exercise", "created_at"])
        batch_op.create_index("ix_submissions_regrade_of", ["regrade_of"], unique=False)


def downgrade() -> None:
    with _keeping_progress_links(), op.batch_alter_table("submissions", schema=None) as batch_op:
        batch_op.drop_index("ix_submissions_regrade_of")
        batch_op.drop_index("ix_submissions_learner_exercise")
        batch_op.drop_constraint("fk_submissions_regrade_of", type_="foreignkey")
        batch_op.drop_column("regrade_batch")
        batch_op.drop_column("regrade_of")
        batch_op.drop_column("exercise_version")
    op.drop_table("enrollments")
    op.drop_table("course_exercises")
    op.drop_table("courses")
    op.drop_table("login_attempts")
    op.drop_table("auth_sessions")
    op.drop_table("users")


@contextmanager
def _keeping_progress_links() -> Iterator[None]:
    """Put back each progress row's submission after the submissions table is rebuilt.

    On SQLite a batch operation copies the table and drops the old one, and dropping it fires
    ``ON DELETE SET NULL`` on ``progress.submission_id`` (foreign keys are on, and a pragma cannot
    turn them off inside the migration's transaction).
    """
    bind = op.get_bind()
    links = bind.execute(sa.text("SELECT learner_id, exercise, submission_id FROM progress "
                                 "WHERE submission_id IS NOT NULL")).all()  # fmt: skip
    yield
    for learner_id, exercise, submission_id in links:
        bind.execute(
            sa.text("UPDATE progress SET submission_id = :s WHERE learner_id = :l AND exercise = :e"),
            {"s": submission_id, "l": learner_id, "e": exercise},
        )
