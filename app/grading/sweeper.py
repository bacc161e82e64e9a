"""The sweeper: puts back in the queue the runs whose worker died, using the database as the source of truth.

It runs in every process that uses the Redis queue (web and workers; running it in several places is
safe, each step is a conditional UPDATE that only one process wins) and looks for running submissions
whose claim's lease ran out (their worker died or hangs): back to ``queued``, with a ``queued`` event
and a bell for the workers — or, after ``max_attempts`` claims, failed with an internal error, so a
submission that keeps killing workers cannot stall the queue forever. (A waiting run whose bell Redis
lost needs no sweeping: idle workers look in the database themselves, see :mod:`app.queue.in_redis`.)

The same thread renews the leases of the claims its process holds, every third of a lease.
"""

from __future__ import annotations

import logging
import threading

from redis.exceptions import RedisError
from sqlalchemy import select, update

from app.events import EventLog
from app.grading.jobs import GradingJobs, internal_error
from app.models import Submission, SubmissionStatus, utcnow
from app.monitoring import Metrics
from app.queue import SubmissionQueue
from grader.results import EventType, QueuedData, messages

log = logging.getLogger(__name__)

_QUEUED = SubmissionStatus.QUEUED.value
_RUNNING = SubmissionStatus.RUNNING.value
_BATCH = 200
#: Group members idle this long with nothing pending are forgotten (at least ten leases).
_CONSUMER_IDLE_SECONDS = 600.0


class Sweeper:
    """Finds submissions stuck past their lease and queues them again."""

    def __init__(
        self, queue: SubmissionQueue, events: EventLog, jobs: GradingJobs, metrics: Metrics, *, lease_seconds: float
    ) -> None:
        self.queue, self.events, self.jobs, self.metrics = queue, events, jobs, metrics
        self.lease_seconds = lease_seconds

    def sweep(self) -> int:
        """One pass; return how many submissions were queued again or failed."""
        swept = self._expired_claims()
        try:
            self.queue.forget_idle_consumers(max(_CONSUMER_IDLE_SECONDS, 10 * self.lease_seconds))
        except RedisError as exc:  # no stream or group yet, or Redis away: nothing to tidy now
            log.debug("tidying the consumer group skipped: %s", exc)
        return swept

    def _expired_claims(self) -> int:
        now = utcnow()
        with self.events.writing() as session:
            rows = session.execute(
                select(Submission.id, Submission.attempts, Submission.exercise)
                .where(Submission.status == _RUNNING, Submission.lease_until < now)
                .limit(_BATCH)
            ).all()
        swept = 0
        for submission_id, attempt, slug in rows:
            extra = {"submission_id": submission_id}
            if attempt >= self.jobs.max_attempts:
                message = messages.grader_gave_up(attempt)
                if self.jobs.finish(submission_id, internal_error(slug, message), attempt=attempt):
                    log.warning("failed after %d claims", attempt, extra=extra)
                    swept += 1
                continue
            with self.events.writing() as session:
                released = session.execute(
                    update(Submission)
                    .where(
                        Submission.id == submission_id,
                        Submission.status == _RUNNING,
                        Submission.attempts == attempt,
                        Submission.lease_until < now,
                    )
                    .values(status=_QUEUED, worker_id=None, lease_until=None)
                    .execution_options(synchronize_session=False)
                ).rowcount  # type: ignore[attr-defined]  # an UPDATE or DELETE gives a CursorResult
            if released:
                log.warning("claim %d ran out (its worker stopped): queued again", attempt, extra=extra)
                self.metrics.requeued.labels(why="lease_expired").inc()
                queued = QueuedData(position=self.queue.position(submission_id)).model_dump(mode="json")
                self.events.record(submission_id, EventType.QUEUED, queued, status=_QUEUED)
                self._enqueue(submission_id)
                swept += 1
        return swept

    def _enqueue(self, submission_id: str) -> None:
        try:
            self.queue.enqueue(submission_id)
        except RedisError as exc:  # queued all the same: an idle worker finds it in the database
            log.warning("ringing for it failed: %s", exc, extra={"submission_id": submission_id})


class Maintenance:
    """A thread that renews this process's leases and runs the sweeper, until stopped."""

    def __init__(self, jobs: GradingJobs, sweeper: Sweeper | None, *, lease_seconds: float, sweep_seconds: float):
        self.jobs, self.sweeper = jobs, sweeper
        self.renew_seconds = lease_seconds / 3
        self.sweep_seconds = sweep_seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="mlkata-maintenance", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=10)

    def _loop(self) -> None:
        tick = min(self.renew_seconds, self.sweep_seconds)
        since_sweep = self.sweep_seconds  # sweep at once on start: recover what a restart left behind
        while not self._stop.is_set():
            try:
                self.jobs.renew_leases()
            except Exception:
                log.exception("renewing leases failed")
            if self.sweeper is not None and since_sweep >= self.sweep_seconds:
                since_sweep = 0.0
                try:
                    self.sweeper.sweep()
                except Exception:
                    log.exception("sweeping failed")
            self._stop.wait(tick)
            since_sweep += tick
