"""Stopping a run: the learner gets the verdict "stopped" at once, and the run's sandbox is killed where it runs.

The verdict is recorded here, from the checks the run has reported so far (the same conditional
``finish`` as a worker's, so whichever comes first wins and the other records nothing). Then the
process grading it kills its sandbox run: this process directly, and, with Redis, every worker is
told on one pub/sub channel and the one holding the claim acts (:meth:`GradingJobs.cancel`). Only
that run is killed; nobody else's run, nor the warm pool, is touched.
"""

from __future__ import annotations

import logging
from typing import Any

import redis
from redis.exceptions import RedisError

from app.events import EventLog
from app.grading.jobs import GradingJobs, internal_error
from app.models import Submission, SubmissionKind, as_utc, utcnow
from grader.exercise import Exercise
from grader.grading import stopped_result
from grader.results import CheckResult, EventType, Reason, Status, TriedValue, TryResult, messages

log = logging.getLogger(__name__)


def _ran_ms(submission: Submission) -> float:
    """How long the run had been graded when it was stopped: 0 for one still waiting in the queue."""
    if submission.started_at is None:
        return 0.0
    return round(max(0.0, (utcnow() - as_utc(submission.started_at)).total_seconds() * 1000), 1)


class StopRequests:
    """Stops the runs learners ask to stop."""

    def __init__(
        self,
        events: EventLog,
        exercises: dict[str, Exercise],
        jobs: GradingJobs,
        *,
        redis_url: str | None = None,
        prefix: str = "mlkata",
        listen: bool = True,
    ) -> None:
        """``listen``: this process grades, so it acts on stop requests published by others (with Redis)."""
        self.events, self.exercises, self.jobs, self.listens = events, exercises, jobs, listen
        self.channel = f"{prefix}:stop"
        self._redis = redis.Redis.from_url(redis_url, socket_timeout=5) if redis_url else None
        self._listener: Any = None

    def stop(self, submission: Submission) -> bool:
        """Finish ``submission`` as stopped (False when it had finished already) and kill its run."""
        finished = self.jobs.finish(submission.id, self._verdict(submission))
        if self.jobs.cancel(submission.id):
            log.info("stopped by its learner", extra={"submission_id": submission.id})
        elif self._redis is not None:
            try:
                self._redis.publish(self.channel, submission.id)
            except RedisError as exc:  # its verdict is recorded: the run ends at its time limit
                log.warning("telling the workers to stop a run failed: %s", exc, extra={"submission_id": submission.id})
        return finished

    def _verdict(self, submission: Submission) -> Any:
        events = self.events.since(submission.id)
        if submission.kind == SubmissionKind.TRY.value:
            values = [TriedValue.model_validate(e.data["value"]) for e in events if e.type == EventType.VALUE]
            return TryResult(
                exercise=submission.exercise, status=Status.ERROR, reason=Reason.STOPPED, values=values,
                message=messages.try_stopped(), duration_ms=_ran_ms(submission),
            )  # fmt: skip
        checks = [CheckResult.model_validate(e.data["check"]) for e in events if e.type == EventType.CHECK]
        exercise = self.exercises.get(submission.exercise)
        if exercise is None:
            return internal_error(submission.exercise, messages.exercise_gone(submission.exercise))
        result = stopped_result(exercise, checks)
        result.duration_ms = _ran_ms(submission)
        return result

    def start(self) -> None:
        """With Redis, in a process that grades: act on stop requests sent by any web process."""
        if self._redis is None or self._listener is not None or not self.listens:
            return
        pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
        pubsub.subscribe(**{self.channel: self._on_message})
        self._listener = pubsub.run_in_thread(sleep_time=0.2, daemon=True)

    def _on_message(self, message: dict[str, Any]) -> None:
        data = message.get("data")
        if isinstance(data, bytes):
            self.jobs.cancel(data.decode("ascii", "replace"))

    def close(self) -> None:
        if self._listener is not None:
            self._listener.stop()
            self._listener = None
        if self._redis is not None:
            self._redis.close()
