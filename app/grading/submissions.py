"""Creating submissions and reading them back, with the checks that guard the queue."""

from __future__ import annotations

import logging
import math
import threading
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from redis.exceptions import RedisError
from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session, sessionmaker

from app.events import EventLog
from app.learners import ensure_learner
from app.models import Progress, Submission, SubmissionKind, SubmissionStatus, as_utc, utcnow
from app.queue import QueueShares, SubmissionQueue, WaitingRuns, exclusive
from app.web import RateLimited
from grader.results import EventType, QueuedData, student_document

log = logging.getLogger(__name__)

#: A PostgreSQL advisory lock key: web processes add submissions one at a time, so every limit holds exactly.
_CREATION_LOCK = 0x6D6C6B71


@dataclass(frozen=True)
class RateLimit:
    """At most ``count`` submissions per learner, and ``per_address`` per client address, in a window."""

    count: int
    window_seconds: float
    per_address: int


class Submissions:
    """The submissions of learners: create (and queue), read, and progress."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        events: EventLog,
        queue: SubmissionQueue,
        *,
        shares: QueueShares,
        rate_limit: RateLimit,
    ) -> None:
        self.sessions, self.events, self.queue = sessions, events, queue
        self.shares, self.rate_limit = shares, rate_limit
        self.runs = WaitingRuns(sessions)
        self._create_lock = threading.Lock()

    def create(
        self,
        learner: str,
        slug: str,
        code: str,
        *,
        client_key: str | None = None,
        kind: SubmissionKind = SubmissionKind.GRADE,
        inputs: str | None = None,
    ) -> Submission:
        """Store a submission and queue it; raise :class:`RateLimited`, :class:`~app.queue.admission.TooManyWaiting`
        or :class:`~app.queue.in_process.QueueFull`.

        ``client_key`` is the keyed hash of the sender's address: the per-address limits count by it.
        A try (``kind``, with its ``inputs``) is queued and limited exactly as a graded run is. The limits
        are read and the submission added in one transaction, one creation at a time across processes.
        """
        submission = Submission(
            id=str(uuid.uuid4()), learner_id=learner, exercise=slug, code=code, client_key=client_key,
            kind=kind.value, inputs=inputs,
        )  # fmt: skip
        with self._create_lock, self.events.writing() as session:
            exclusive(session, _CREATION_LOCK)
            self._check_rate(session, learner, client_key)
            self.shares.check(session, learner, client_key)
            ensure_learner(session, learner)
            session.add(submission)
            session.flush()
            # Recorded before the id is queued, so "queued" always comes before a worker's "started". The runs
            # it goes ahead of hear their new places when a worker next takes one (report_positions).
            scope = self.queue.scope()
            within = None if scope is None else scope | {submission.id}
            place = self.runs.position(submission.id, within, session=session)
            self.events.add(session, submission.id, EventType.QUEUED, QueuedData(position=place).model_dump())
        try:
            self.queue.enqueue(submission.id)
        except RedisError as exc:
            # Recorded is enough: idle workers look in the database for runs no bell announced.
            log.warning("queueing failed, workers will find it: %s", exc, extra={"submission_id": submission.id})
        return submission

    def _check_rate(self, session: Session, learner: str, client_key: str | None) -> None:
        """Raise :class:`RateLimited` when the learner, or the address they send from, used up its limit.

        The address counts whatever the cookie says, so a client that drops its cookie (a new learner
        each time) is still limited.
        """
        now = utcnow()
        limits = [(Submission.learner_id == learner, self.rate_limit.count)]
        if client_key is not None:
            limits.append((Submission.client_key == client_key, self.rate_limit.per_address))
        waits = [self._wait(session, sender, limit, now) for sender, limit in limits]
        if any(waits):
            raise RateLimited(max(wait for wait in waits if wait))

    def _wait(self, session: Session, sender: ColumnElement[bool], limit: int, now: datetime) -> int | None:
        """Seconds until the sender has fewer than ``limit`` submissions in the window; None if it has now."""
        window = timedelta(seconds=self.rate_limit.window_seconds)
        # The newest ``limit`` in the window: the count drops below the limit when the oldest of them leaves it.
        recent = session.scalars(
            select(Submission.created_at)
            # A regrade's copies are the operator's runs, not the learner's: they use none of the learner's allowance.
            .where(sender, Submission.created_at > now - window, Submission.regrade_of.is_(None))
            .order_by(Submission.created_at.desc())
            .limit(limit)
        ).all()
        if len(recent) < limit:
            return None
        return max(1, math.ceil((as_utc(recent[-1]) + window - now).total_seconds()))

    def report_positions(self) -> None:
        """Record a new ``queued`` event for every learner's waiting run (called when a worker takes one).

        A regrade's runs are left out: nobody follows them.
        """
        scope = self.queue.scope()
        if scope is not None and not scope:
            return
        with self.events.writing() as session:
            for position, run in enumerate(self.runs.in_order(scope, session=session), start=1):
                if run.regrade:
                    continue
                # Only while still waiting: another worker may have started it meanwhile.
                data = QueuedData(position=position).model_dump()
                self.events.add(session, run.id, EventType.QUEUED, data, status=SubmissionStatus.QUEUED.value)

    def get(self, learner: str, submission_id: str) -> Submission | None:
        """The learner's own submission, or None (also for somebody else's: the same 404 for both)."""
        with self.sessions() as session:
            submission = session.get(Submission, submission_id)
        if submission is None or submission.learner_id != learner:
            return None
        return submission

    def history(self, learner: str, slug: str, limit: int = 50) -> list[Submission]:
        """The learner's graded runs of an exercise, newest first (tries and regrades left out)."""
        with self.sessions() as session:
            return list(
                session.scalars(
                    select(Submission)
                    .where(
                        Submission.learner_id == learner,
                        Submission.exercise == slug,
                        Submission.kind == SubmissionKind.GRADE.value,
                        Submission.regrade_of.is_(None),
                    )
                    .order_by(Submission.created_at.desc())
                    .limit(limit)
                )
            )

    def latest(self, learner: str, slug: str) -> Submission | None:
        """The learner's last graded run of an exercise."""
        found = self.history(learner, slug, limit=1)
        return found[0] if found else None

    def position(self, submission: Submission) -> int | None:
        if submission.status != SubmissionStatus.QUEUED.value:
            return None
        return self.queue.position(submission.id)

    def solved(self, learner: str) -> dict[str, datetime]:
        """The exercises this learner solved, with when."""
        with self.sessions() as session:
            rows = session.execute(
                select(Progress.exercise, Progress.solved_at).where(Progress.learner_id == learner)
            ).all()
        return {slug: as_utc(when) for slug, when in rows}


def public_view(submission: Submission, position: int | None, base: str = "/api") -> dict[str, Any]:
    return {
        "id": submission.id,
        "exercise": submission.exercise,
        "kind": submission.kind,
        "status": submission.status,
        "position": position,
        "created_at": as_utc(submission.created_at),
        "started_at": as_utc(submission.started_at) if submission.started_at else None,
        "finished_at": as_utc(submission.finished_at) if submission.finished_at else None,
        "duration_ms": submission.duration_ms,
        "events_url": f"{base}/submissions/{submission.id}/events",
        "stop_url": f"{base}/submissions/{submission.id}/stop",
        "code": submission.code,
        "inputs": submission.inputs,
        "result": student_document(submission.result),  # the stored result keeps hidden output for instructors
    }
