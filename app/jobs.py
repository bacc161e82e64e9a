"""Grading one submission: what a worker does with an id it takes from the queue."""

from __future__ import annotations

import logging
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.events import EventLog
from app.models import Progress, Submission, SubmissionStatus, utcnow
from grader.events import CheckFinished, Finished, OutputProduced, Started
from grader.exercise import Exercise
from grader.grading import grade
from grader.results import GradeResult, Reason, Status

log = logging.getLogger(__name__)


class GradingJobs:
    """Runs the grader on stored submissions and records what happens as events."""

    def __init__(
        self, sessions: sessionmaker[Session], events: EventLog, exercises: dict[str, Exercise], *, jailed: bool
    ) -> None:
        self.sessions, self.events, self.exercises, self.jailed = sessions, events, exercises, jailed

    def run(self, submission_id: str) -> None:
        """Grade one queued submission; a submission that is not queued (already taken) is left alone."""
        with self.events.writing() as session:
            submission = session.get(Submission, submission_id)
            if submission is None or submission.status != SubmissionStatus.QUEUED.value:
                return
            submission.status = SubmissionStatus.RUNNING.value
            submission.started_at = utcnow()
            slug, code = submission.exercise, submission.code
            exercise = self.exercises.get(slug)
            if exercise is not None:
                # Sent when a worker starts, before the solution loads, so the page leaves "queued" at once.
                self.events.add(session, submission_id, "started", {"checks": [c.title for c in exercise.checks]})
        if exercise is None:
            self.finish(submission_id, internal_error(slug, f"The exercise {slug!r} no longer exists."))
            return

        finished = False

        def on_event(event: Started | CheckFinished | OutputProduced | Finished) -> None:
            nonlocal finished
            match event:
                case Started():
                    pass  # already announced when the worker started
                case CheckFinished(index=index, check=check):
                    self.events.record(submission_id, "check", {"index": index, "check": check.model_dump(mode="json")})
                case OutputProduced(text=text):
                    self.events.record(submission_id, "output", {"text": text})
                case Finished(result=result):
                    self.finish(submission_id, result)
                    finished = True

        try:
            grade(exercise, code, jailed=self.jailed, on_event=on_event)
        except Exception as exc:
            log.exception("grading submission %s raised", submission_id)
            if not finished:
                message = (
                    f"The grader failed ({type(exc).__name__}). This is a problem on the server, not in your code."
                )
                self.finish(submission_id, internal_error(slug, message))

    def finish(self, submission_id: str, result: GradeResult) -> None:
        """Store the verdict, mark progress, and record the ``done`` event, in one transaction."""
        with self.events.writing() as session:
            submission = session.get(Submission, submission_id)
            if submission is None:
                return
            now = utcnow()
            submission.status = result.status.value
            submission.result = result.to_json_dict()
            submission.finished_at = now
            submission.duration_ms = result.duration_ms
            if result.status is Status.PASS:
                _mark_solved(session, submission.learner_id, submission.exercise, submission_id, now)
            self.events.add(
                session, submission_id, "done", {"status": result.status.value, "result": result.to_json_dict()}
            )

    def recover(self) -> list[str]:
        """After a restart: fail the runs that were cut short, and return the ids still waiting, oldest first."""
        with self.sessions() as session:
            rows = session.execute(
                select(Submission.id, Submission.exercise).where(Submission.status == SubmissionStatus.RUNNING.value)
            ).all()
            waiting = session.scalars(
                select(Submission.id)
                .where(Submission.status == SubmissionStatus.QUEUED.value)
                .order_by(Submission.created_at)
            ).all()
        for submission_id, slug in rows:
            self.finish(submission_id, internal_error(slug, "The server restarted while this ran. Press Run again."))
        return list(waiting)


def _mark_solved(session: Session, learner: str, slug: str, submission_id: str, when: datetime) -> None:
    # Runs under EventLog's write lock, so two passing runs of one learner cannot both insert.
    if session.get(Progress, (learner, slug)) is None:
        session.add(Progress(learner_id=learner, exercise=slug, solved_at=when, submission_id=submission_id))


def internal_error(slug: str, message: str) -> GradeResult:
    return GradeResult(status=Status.ERROR, reason=Reason.INTERNAL_ERROR, message=message, exercise=slug)
