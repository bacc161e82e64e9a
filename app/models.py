"""Tables: learners, their submissions, the events of each grading run, progress, drafts, accounts and courses."""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """SQLite hands datetimes back without their zone; they were stored in UTC."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    pass


class SubmissionKind(enum.StrEnum):
    """What a submission asks for: a graded run, or a try on the learner's own inputs."""

    GRADE = "grade"
    TRY = "try"


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
        Index("ix_submissions_learner_exercise", "learner_id", "exercise", "created_at"),
        Index("ix_submissions_regrade_of", "regrade_of"),
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
    # The content hash of the exercise folder it was graded against (grader.exercise.versions), set with the verdict.
    exercise_version: Mapped[str | None] = mapped_column(String(16), default=None)
    # A regrade is a copy of an earlier submission, graded again through the queue: the original keeps
    # its verdict, this row holds the new one. ``regrade_batch`` groups one `mlkata regrade` run.
    regrade_of: Mapped[str | None] = mapped_column(ForeignKey("submissions.id", ondelete="CASCADE"), default=None)
    regrade_batch: Mapped[str | None] = mapped_column(String(36), default=None)
    #: ``grade`` (Run: the checks give a verdict) or ``try`` (Try it: the learner's own inputs, graded by nothing).
    kind: Mapped[str] = mapped_column(String(8), default="grade", server_default="grade")
    #: For a try, what the learner typed: Python run in the sandbox next to solution.py.
    inputs: Mapped[str | None] = mapped_column(Text, default=None)
    #: When the run was credited to its learner, if not when it was made: a run moved from an anonymous
    #: learner into an account counts from the move (courses judge "late" by it, see app.courses.runs).
    credited_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


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


class Draft(Base):
    """What a learner last typed into an exercise: its code (``field`` "code") or its Try it inputs ("inputs").

    ``revision`` counts the saves, so a page can tell that another tab or device saved after it last looked.
    """

    __tablename__ = "drafts"
    __table_args__ = (Index("ix_drafts_client_created", "client_key", "created_at"),)

    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True)
    exercise: Mapped[str] = mapped_column(String(100), primary_key=True)
    field: Mapped[str] = mapped_column(String(8), primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    revision: Mapped[int] = mapped_column(Integer)
    saved_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    # Who first saved it: new drafts are limited per client address (app.learners.ClientAddresses' keyed hash).
    client_key: Mapped[str | None] = mapped_column(String(32), default=None)


class Role(enum.StrEnum):
    """What an account may do: students solve and join courses, instructors also run courses, admins everything."""

    STUDENT = "student"
    INSTRUCTOR = "instructor"
    ADMIN = "admin"


class User(Base):
    """An account: an e-mail address, a password hash and a role, with a learner of its own."""

    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    # Stored folded to lower case, so one address is one account however it is typed.
    email: Mapped[str] = mapped_column(String(254), unique=True)
    password_hash: Mapped[str] = mapped_column(Text)
    role: Mapped[str] = mapped_column(String(16), default=Role.STUDENT.value)
    # The learner whose submissions and progress the account owns; never a cookie's id.
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="RESTRICT"), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class AuthSession(Base):
    """A signed-in browser (or an API token): the cookie or token itself is never stored, only its hash."""

    __tablename__ = "auth_sessions"
    __table_args__ = (Index("ix_auth_sessions_user", "user_id"),)

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(8), default="browser")  # "browser" or "api"
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class LoginAttempt(Base):
    """A failed sign-in or a sign-up, counted by the login rate limit (keyed hashes, never the address or e-mail)."""

    __tablename__ = "login_attempts"
    __table_args__ = (
        Index("ix_login_attempts_account", "account_key", "created_at"),
        Index("ix_login_attempts_client", "client_key", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    kind: Mapped[str] = mapped_column(String(8))  # "signin" or "signup"
    account_key: Mapped[str] = mapped_column(String(32))
    client_key: Mapped[str] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Course(Base):
    """A course: its instructor, its exercises and the code in its join link."""

    __tablename__ = "courses"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    owner_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    join_code: Mapped[str] = mapped_column(String(32), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CourseExercise(Base):
    """An exercise of a course, in the course's order, with an optional due date."""

    __tablename__ = "course_exercises"

    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    exercise: Mapped[str] = mapped_column(String(100), primary_key=True)
    position: Mapped[int] = mapped_column(Integer, default=0)
    due_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), default=None)


class Enrollment(Base):
    """A student in a course, since they joined."""

    __tablename__ = "enrollments"
    __table_args__ = (Index("ix_enrollments_user", "user_id"),)

    course_id: Mapped[str] = mapped_column(ForeignKey("courses.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), primary_key=True)
    joined_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
