"""The sweeper: puts back in the queue whatever the queue lost, using the database as the source of truth.

It runs in every process that uses the Redis queue (web and workers; running it in several places is
safe, each step is a conditional UPDATE that only one process wins) and looks for:

- running submissions whose claim's lease ran out (their worker died or hangs): back to ``queued``,
  with a ``queued`` event, and a new queue entry — or, after ``max_attempts`` claims, failed with an
  internal error, so a submission that keeps killing workers cannot stall the queue forever;
- queued submissions past their lease whose queue entry is gone (Redis restarted empty, or the
  process died between recording the submission and queueing it): queued again.

The same thread renews the leases of the claims its process holds, every third of a lease.
"""

from __future__ import annotations

import logging
import threading
from datetime import timedelta

from redis.exceptions import RedisError
from sqlalchemy import or_, select, update

from app.events import EventLog
from app.jobs import GradingJobs, internal_error
from app.metrics import Metrics
from app.models import Submission, SubmissionStatus, utcnow
from app.redis_queue import RedisQueue
from grader.events import EventType, QueuedData

log = logging.getLogger(__name__)

_QUEUED = SubmissionStatus.QUEUED.value
_RUNNING = SubmissionStatus.RUNNING.value
_BATCH = 200
#: Group members idle this long with nothing pending are forgotten (at least ten leases).
_CONSUMER_IDLE_SECONDS = 600.0


class Sweeper:
    """Finds submissions stuck past their lease and queues them again."""

    def __init__(
        self, queue: RedisQueue, events: EventLog, jobs: GradingJobs, metrics: Metrics, *, lease_seconds: float
    ) -> None:
        self.queue, self.events, self.jobs, self.metrics = queue, events, jobs, metrics
        self.lease_seconds = lease_seconds

    def sweep(self) -> int:
        """One pass; return how many submissions were queued again or failed."""
        # Expired claims first: they come back as queued without a lease, which _lost_entries then checks.
        swept = self._expired_claims() + self._lost_entries()
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
                message = (
                    f"The grader stopped {attempt} times while grading this. Press Run again, or tell your teacher."
                )
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
                    # queue_ref is kept: while the dead worker's entry is pending, a worker reclaims it
                    # (XAUTOCLAIM) at the head of the queue; _lost_entries adds a new one only if it is gone.
                    .values(status=_QUEUED, worker_id=None, lease_until=None)
                    .execution_options(synchronize_session=False)
                ).rowcount
            if released:
                log.warning("claim %d ran out (its worker stopped): queued again", attempt, extra=extra)
                self.metrics.requeued.labels(why="lease_expired").inc()
                queued = QueuedData(position=self.queue.position(submission_id)).model_dump(mode="json")
                self.events.record(submission_id, EventType.QUEUED, queued, status=_QUEUED)
                swept += 1
        return swept

    def _lost_entries(self) -> int:
        now = utcnow()
        with self.queue.sessions() as session:
            rows = session.execute(
                select(Submission.id, Submission.queue_ref, Submission.lease_until)
                .where(
                    Submission.status == _QUEUED,
                    or_(Submission.lease_until.is_(None), Submission.lease_until < now),
                )
                .order_by(Submission.created_at)
                .limit(_BATCH)
            ).all()
        swept = 0
        for submission_id, entry, lease_until in rows:
            # Take the check for ourselves first, so concurrent sweepers do not both queue it again.
            with self.queue.sessions.begin() as session:
                won = session.execute(
                    update(Submission)
                    .where(
                        Submission.id == submission_id,
                        Submission.status == _QUEUED,
                        Submission.lease_until.is_(None)
                        if lease_until is None
                        else Submission.lease_until == lease_until,
                    )
                    .values(lease_until=now + timedelta(seconds=self.lease_seconds))
                ).rowcount
            if not won:
                continue
            try:
                if self.queue.holds(entry):
                    continue
            except RedisError:
                return swept  # Redis away: try again next pass
            log.warning("its queue entry was lost: queued again", extra={"submission_id": submission_id})
            self.metrics.requeued.labels(why="entry_lost").inc()
            self._enqueue(submission_id)
            swept += 1
        return swept

    def _enqueue(self, submission_id: str) -> None:
        try:
            self.queue.enqueue(submission_id, force=True)
        except RedisError as exc:  # the row stays queued without an entry: the next pass tries again
            log.warning("queueing again failed: %s", exc, extra={"submission_id": submission_id})


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
