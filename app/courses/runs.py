"""The runs of a course's students on its exercises, each with its current verdict and when it counts.

A run's current verdict is the newest finished regrade of it (``mlkata regrade``) or, without one,
its own; the verdict it had before stays beside it. A run the learner stopped keeps "stopped": a
regrade never turns it into a verdict it was not allowed to reach. Attempts count only what students sent.

A run counts for a course (due dates, "late") from when it reached the server for the student's
account: when it was sent, or, for a run made without an account and moved into one, when it moved.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from app.models import Submission, SubmissionKind, SubmissionStatus, as_utc
from grader.results import Reason

_FINISHED = [SubmissionStatus.PASS.value, SubmissionStatus.FAIL.value, SubmissionStatus.ERROR.value]


@dataclass(frozen=True)
class Verdict:
    """One grading of a run: its status, points, the exercise version it was graded against, and the result."""

    submission_id: str
    status: str
    points: float
    max_points: float
    version: str | None
    finished_at: datetime | None
    result: dict[str, Any] | None
    stopped: bool = False  # its learner stopped it

    @property
    def finished(self) -> bool:
        return self.status in _FINISHED


@dataclass(frozen=True)
class Run:
    """What a student sent once, and how it stands now."""

    id: str
    learner_id: str
    exercise: str
    created_at: datetime
    original: Verdict
    regrade: Verdict | None  # the newest finished regrade, if any
    moved_at: datetime | None = None  # when it moved from an anonymous learner into the account, if it did

    @property
    def credited_at(self) -> datetime:
        """When the run counts for the account: its move into the account, or when it was sent."""
        return self.moved_at or self.created_at

    @property
    def current(self) -> Verdict:
        if self.original.stopped or self.regrade is None:
            return self.original
        return self.regrade

    @property
    def passed(self) -> bool:
        return self.current.status == SubmissionStatus.PASS.value


def load_runs(
    sessions: sessionmaker[Session], learners: Iterable[str], slugs: Iterable[str], *, results: bool = False
) -> list[Run]:
    """Every run of these learners on these exercises, oldest first; ``results`` also loads each result document."""
    learner_ids, exercise_slugs = list(learners), list(slugs)
    if not learner_ids or not exercise_slugs:
        return []
    columns = [
        Submission.id,
        Submission.learner_id,
        Submission.exercise,
        Submission.created_at,
        Submission.credited_at,
        Submission.status,
        Submission.finished_at,
        Submission.exercise_version,
        Submission.regrade_of,
        Submission.result,
    ]
    rows: list[Any] = []
    with sessions() as session:
        # In chunks: a large class must not exceed the database's limit on bound parameters.
        for start in range(0, len(learner_ids), 500):
            rows += session.execute(
                select(*columns)
                .where(
                    Submission.learner_id.in_(learner_ids[start : start + 500]),
                    Submission.exercise.in_(exercise_slugs),
                    Submission.kind == SubmissionKind.GRADE.value,  # a Try it is not a run: nothing graded it
                )
                .order_by(Submission.created_at, Submission.id)
            ).all()
    regrades: dict[str, Verdict] = {}
    originals = []
    for row in rows:
        verdict = _verdict(row, keep_result=results)
        if row.regrade_of is None:
            originals.append((row, verdict))
        elif verdict.finished:
            regrades[row.regrade_of] = verdict  # oldest first, so the newest wins
    return [
        Run(
            row.id,
            row.learner_id,
            row.exercise,
            as_utc(row.created_at),
            verdict,
            regrades.get(row.id),
            moved_at=as_utc(row.credited_at) if row.credited_at else None,
        )
        for row, verdict in originals
    ]


def _verdict(row: Any, *, keep_result: bool) -> Verdict:
    result = row.result if isinstance(row.result, dict) else None
    got = float(result.get("points") or 0) if result else 0.0
    most = float(result.get("max_points") or 0) if result else 0.0
    finished_at = as_utc(row.finished_at) if row.finished_at else None
    kept = result if keep_result else None
    return Verdict(row.id, row.status, got, most, row.exercise_version, finished_at, kept, stopped(result))


def stopped(result: Any) -> bool:
    """Whether a run's result says its learner stopped it."""
    return isinstance(result, dict) and result.get("reason") == Reason.STOPPED.value
