"""Grading one submission: what a worker does with an id it takes from the queue.

A worker first *claims* the submission in the database (one conditional UPDATE: it must be queued,
or running under a claim whose lease ran out), which bumps ``attempts``. Everything the run then
records — events and the verdict — is conditional on that attempt still being the current one, and
the verdict also on the submission not being finished yet. So a job handed out twice (a reclaim
after a lease ran out, a duplicate queue entry) is graded by one claim at a time and finished once.

Longer than 300 lines: a claim's whole life (claimed, graded, finished, its lease renewed, given back
or recovered) is one class, since every step is conditional on the same attempt under one lock.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import and_, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, sessionmaker

from app.events import EventLog
from app.models import Progress, Submission, SubmissionKind, SubmissionStatus, utcnow
from app.monitoring import Metrics, submission_context
from grader.exercise import Exercise
from grader.grading import Stop, grade, try_solution
from grader.results import (
    CheckData,
    CheckFinished,
    DoneData,
    EventType,
    Finished,
    GradeResult,
    OutputData,
    OutputProduced,
    QueuedData,
    Reason,
    Started,
    StartedData,
    Status,
    Tried,
    TryResult,
    ValueData,
    ValueShown,
    messages,
)

log = logging.getLogger(__name__)

_QUEUED = SubmissionStatus.QUEUED.value
_RUNNING = SubmissionStatus.RUNNING.value


@dataclass(frozen=True)
class Claim:
    submission_id: str
    attempt: int
    slug: str
    code: str
    created_at: datetime
    kind: str = SubmissionKind.GRADE.value
    inputs: str | None = None


class GradingJobs:
    """Runs the grader on stored submissions and records what happens as events."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        events: EventLog,
        exercises: dict[str, Exercise],
        *,
        jailed: bool,
        lease_seconds: float = 30.0,
        max_attempts: int = 3,
        worker_id: str | None = None,
        metrics: Metrics | None = None,
        on_claimed: Callable[[], None] | None = None,
    ) -> None:
        self.sessions, self.events, self.exercises, self.jailed = sessions, events, exercises, jailed
        self.lease_seconds, self.max_attempts, self.worker_id = lease_seconds, max_attempts, worker_id
        self.metrics = metrics or Metrics()
        self.on_claimed = on_claimed or (lambda: None)
        self._running: dict[str, int] = {}  # submission id → attempt, the claims this process holds
        self._stops: dict[str, Stop] = {}  # submission id → what ends its run, for the claims held here
        self._running_lock = threading.Lock()

    def run(self, submission_id: str) -> None:
        """Grade one submission if it can be claimed; one that is finished or held by a live claim is left alone."""
        with submission_context(submission_id):
            claim = self.claim(submission_id)
            if claim is None:
                log.info("not claimed: finished, or held by another worker")
                return
            stop = Stop()
            with self._running_lock:
                self._running[submission_id] = claim.attempt
                self._stops[submission_id] = stop
            try:
                self._grade(claim, stop)
            finally:
                with self._running_lock:
                    self._running.pop(submission_id, None)
                    self._stops.pop(submission_id, None)

    def cancel(self, submission_id: str) -> bool:
        """End the sandbox run of a submission this process is grading, at once; False if it grades no such one.

        Only that run is killed (its own channel is woken; its grading thread kills it); every
        other run and the warm pool carry on.
        """
        with self._running_lock:
            stop = self._stops.get(submission_id)
        if stop is None:
            return False
        stop.request()
        return True

    def claim(self, submission_id: str) -> Claim | None:
        now = utcnow()
        with self.events.writing() as session:
            row = session.execute(
                update(Submission)
                .where(
                    Submission.id == submission_id,
                    Submission.attempts < self.max_attempts,
                    or_(
                        Submission.status == _QUEUED,
                        and_(Submission.status == _RUNNING, Submission.lease_until < now),
                    ),
                )
                .values(
                    status=_RUNNING,
                    started_at=now,
                    attempts=Submission.attempts + 1,
                    lease_until=now + timedelta(seconds=self.lease_seconds),
                    worker_id=self.worker_id,
                )
                .returning(
                    Submission.attempts,
                    Submission.exercise,
                    Submission.code,
                    Submission.created_at,
                    Submission.kind,
                    Submission.inputs,
                )
                .execution_options(synchronize_session=False)
            ).one_or_none()
            if row is None:
                return None
            claim = Claim(submission_id, row.attempts, row.exercise, row.code, row.created_at, row.kind, row.inputs)
            exercise = self.exercises.get(claim.slug)
            if exercise is not None and claim.kind == SubmissionKind.TRY.value:
                self.events.add(session, submission_id, EventType.STARTED, StartedData(checks=[]).model_dump(),
                                attempt=claim.attempt)  # fmt: skip
            elif exercise is not None:
                # Sent when a worker starts, before the solution loads, so the page leaves "queued" at once.
                started = StartedData(checks=[c.title for c in exercise.checks])
                self.events.add(
                    session, submission_id, EventType.STARTED, started.model_dump(mode="json"), attempt=claim.attempt
                )
        self.metrics.observe_wait(claim.created_at, now)
        try:
            self.on_claimed()
        except Exception:
            log.exception("reporting queue positions failed")
        return claim

    def _grade(self, claim: Claim, stop: Stop) -> None:
        submission_id, attempt = claim.submission_id, claim.attempt
        exercise = self.exercises.get(claim.slug)
        if exercise is None:
            self.finish(submission_id, internal_error(claim.slug, messages.exercise_gone(claim.slug)))
            return
        log.info("grading (attempt %d)", attempt)
        finished = False

        def on_event(event: Started | CheckFinished | ValueShown | OutputProduced | Finished | Tried) -> None:
            nonlocal finished
            match event:
                case Started():
                    pass  # already announced when the worker started
                case ValueShown(index=index, value=value):
                    data = ValueData(index=index, value=value).model_dump(mode="json")
                    self.events.record(submission_id, EventType.VALUE, data, status=_RUNNING, attempt=attempt)
                case Tried(result=tried):
                    finished = True
                    self.finish(submission_id, tried, attempt=attempt, version=exercise.version)
                case CheckFinished(index=index, check=check):
                    data = CheckData(index=index, check=check.for_student()).model_dump(mode="json")
                    self.events.record(submission_id, EventType.CHECK, data, status=_RUNNING, attempt=attempt)
                case OutputProduced(text=text):
                    data = OutputData(text=text).model_dump(mode="json")
                    self.events.record(submission_id, EventType.OUTPUT, data, status=_RUNNING, attempt=attempt)
                case Finished(result=result):
                    finished = True
                    self.finish(submission_id, result, attempt=attempt, version=exercise.version)

        started = time.monotonic()
        try:
            if claim.kind == SubmissionKind.TRY.value:
                try_solution(exercise, claim.code, claim.inputs or "", jailed=self.jailed, on_event=on_event, stop=stop)
            else:
                grade(exercise, claim.code, jailed=self.jailed, on_event=on_event, stop=stop)
        except Exception as exc:  # counted as a sandbox failure by finish (internal_error)
            log.exception("grading raised")
            if not finished:
                message = messages.grader_failed(type(exc).__name__)
                self.finish(
                    submission_id, internal_error(claim.slug, message), attempt=attempt, version=exercise.version
                )
        finally:
            self.metrics.grading_seconds.observe(time.monotonic() - started)

    def finish(
        self,
        submission_id: str,
        result: GradeResult | TryResult,
        *,
        attempt: int | None = None,
        version: str | None = None,
    ) -> bool:
        """Store the verdict (with the ``version`` of the exercise it was graded against), mark progress, and
        record the ``done`` event, in one transaction.

        Only the first verdict counts: return False (recording nothing) when the submission is finished
        already, or when ``attempt`` is given and is no longer the current claim.
        """
        now = utcnow()
        with self.events.writing() as session:
            finishing = (
                update(Submission)
                .where(Submission.id == submission_id, Submission.status.in_([_QUEUED, _RUNNING]))
                .values(
                    status=result.status.value,
                    result=result.to_json_dict(),
                    finished_at=now,
                    duration_ms=result.duration_ms,
                    lease_until=None,
                    exercise_version=version,
                )
                .returning(Submission.learner_id, Submission.exercise)
                .execution_options(synchronize_session=False)
            )
            if attempt is not None:  # a worker's verdict: only while its claim is the current one
                finishing = finishing.where(Submission.status == _RUNNING, Submission.attempts == attempt)
            row = session.execute(finishing).one_or_none()
            if row is None:
                return False
            if isinstance(result, GradeResult) and result.status is Status.PASS:
                _mark_solved(session, row.learner_id, row.exercise, submission_id, now)
            done = DoneData(status=result.status, result=result.for_student())
            self.events.add(session, submission_id, EventType.DONE, done.model_dump(mode="json"))
        self.metrics.verdicts.labels(status=result.status.value, reason=result.reason.value).inc()
        if result.reason is Reason.INTERNAL_ERROR:
            self.metrics.sandbox_failures.inc()
        log.info("finished: %s (%s)", result.status.value, result.reason.value, extra={"submission_id": submission_id})
        return True

    def running(self) -> dict[str, int]:
        """The claims this process holds: submission id → attempt."""
        with self._running_lock:
            return dict(self._running)

    def renew_leases(self) -> None:
        """Push back the lease of every claim this process holds (called well within ``lease_seconds``)."""
        claims = self.running()
        if not claims:
            return
        until = utcnow() + timedelta(seconds=self.lease_seconds)
        with self.sessions.begin() as session:
            for submission_id, attempt in claims.items():
                session.execute(
                    update(Submission)
                    .where(
                        Submission.id == submission_id, Submission.attempts == attempt, Submission.status == _RUNNING
                    )
                    .values(lease_until=until)
                )

    def release_claims(self) -> list[str]:
        """Give back every claim this process holds (queued again, with a ``queued`` event); return their ids.

        For a worker stopping before its runs finished: whatever those runs still record is refused.
        """
        released = []
        for submission_id, attempt in self.running().items():
            with self.events.writing() as session:
                count = session.execute(
                    update(Submission)
                    .where(Submission.id == submission_id, Submission.attempts == attempt)
                    .where(Submission.status == _RUNNING)
                    .values(status=_QUEUED, worker_id=None, lease_until=None)
                    .execution_options(synchronize_session=False)
                ).rowcount  # type: ignore[attr-defined]  # an UPDATE or DELETE gives a CursorResult
                if count:
                    queued = QueuedData(position=None).model_dump(mode="json")
                    self.events.add(session, submission_id, EventType.QUEUED, queued, status=_QUEUED)
                    released.append(submission_id)
        return released

    def recover(self) -> list[str]:
        """After a restart: fail the runs that were cut short, and return the ids still waiting, oldest first.

        Only for the embedded queue, where this process was the only grader.
        """
        with self.sessions() as session:
            rows = session.execute(
                select(Submission.id, Submission.exercise).where(Submission.status == _RUNNING)
            ).all()
            waiting = session.scalars(
                select(Submission.id).where(Submission.status == _QUEUED).order_by(Submission.created_at)
            ).all()
        for submission_id, slug in rows:
            self.finish(submission_id, internal_error(slug, messages.server_restarted()))
        return list(waiting)


def _mark_solved(session: Session, learner: str, slug: str, submission_id: str, when: datetime) -> None:
    # INSERT … ON CONFLICT DO NOTHING: two passing runs of one learner, in two processes, both succeed.
    values = {"learner_id": learner, "exercise": slug, "solved_at": when, "submission_id": submission_id}
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    session.execute(insert(Progress).values(**values).on_conflict_do_nothing(index_elements=["learner_id", "exercise"]))


def internal_error(slug: str, message: str) -> GradeResult:
    return GradeResult(status=Status.ERROR, reason=Reason.INTERNAL_ERROR, message=message, exercise=slug)
