"""Tables: learners, their submissions, the events of each grading run, and progress."""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class SubmissionStatus(enum.StrEnum):
    """Where a submission is: waiting, being graded, or finished with the grader's verdict."""

    QUEUED = "queued"
    RUNNING = "running"
    PASS = "pass"
    FAIL = "fail"
    ERROR = "error"

    @property
    def finished(self) -> bool:
        return self not in (SubmissionStatus.QUEUED, SubmissionStatus.RUNNING)


class Learner(Base):
    """An anonymous learner, known only by the signed cookie that carries this id."""

    __tablename__ = "learners"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Submission(Base):
    """One press of Run. This row is the source of truth; queues only carry its id."""

    __tablename__ = "submissions"
    __table_args__ = (
        Index("ix_submissions_learner_created", "learner_id", "created_at"),
        Index("ix_submissions_status", "status"),
        Index("ix_submissions_status_created", "status", "created_at"),
        Index("ix_submissions_client_created", "client_key", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    exercise: Mapped[str] = mapped_column(String(100))
    code: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default=SubmissionStatus.QUEUED.value)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    duration_ms: Mapped[float | None] = mapped_column(Float, default=None)
    # The number of the last event recorded, bumped by one atomic UPDATE per event: numbering stays
    # gapless and unique even when several processes record events of one submission.
    last_event_seq: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Which run owns the submission: bumped each time a worker claims it, so a worker that lost its
    # claim (its lease ran out and another worker took over) can no longer record anything.
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # Queued: when the sweeper next checks the queue still holds it. Running: when the worker's
    # claim runs out unless renewed. Past it, the sweeper puts the submission back in the queue.
    lease_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)
    worker_id: Mapped[str | None] = mapped_column(String(100), default=None)
    # The queue's own id for the entry carrying this submission (a Redis stream entry id).
    queue_ref: Mapped[str | None] = mapped_column(String(64), default=None)
    # Who sent it, for the per-address rate limit: a hash of the client's address keyed with the
    # server's secret key (app.learners.ClientAddresses), never the address itself.
    client_key: Mapped[str | None] = mapped_column(String(32), default=None)


class SubmissionEvent(Base):
    """One server-sent event of a grading run, numbered from 1 within its submission."""

    __tablename__ = "submission_events"
    __table_args__ = (UniqueConstraint("submission_id", "seq", name="uq_submission_events_seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    submission_id: Mapped[str] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(String(16))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Progress(Base):
    """An exercise a learner solved, and when they first did."""

    __tablename__ = "progress"

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    exercise: Mapped[str] = mapped_column(String(100), primary_key=True)
    solved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    submission_id: Mapped[str | None] = mapped_column(ForeignKey("submissions.id", ondelete="SET NULL"))
