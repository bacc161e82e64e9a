"""Where one learner stands on the curriculum: each exercise solved, attempted or not started, and what to open next.

An exercise is *attempted* once the learner sent a graded run of it (Run, not Try it) without solving
it yet; a regrade is the operator's run, not the learner's, and never counts. "Solved" is the
progress the grading records (``Submissions.solved``): this module only reads the runs beside it.
"""

from __future__ import annotations

import enum
from collections.abc import Container, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, and_, func, select
from sqlalchemy.orm import Session, sessionmaker

from app.models import Submission, SubmissionKind, as_utc


class Status(enum.StrEnum):
    """Where a learner stands on one exercise; the value is what the roadmap's filter puts in its URL."""

    SOLVED = "solved"
    ATTEMPTED = "attempted"
    NOT_STARTED = "not-started"

    @property
    def label(self) -> str:
        return self.value.replace("-", " ")


@dataclass(frozen=True)
class Attempts:
    """A learner's graded runs of one exercise: how many, and when the last was sent."""

    runs: int
    last_run_at: datetime


@dataclass(frozen=True)
class LearnerProgress:
    """What one learner solved (with when) and which exercises they ran (with how often)."""

    solved: Mapping[str, datetime]
    attempts: Mapping[str, Attempts]

    def status(self, slug: str) -> Status:
        if slug in self.solved:
            return Status.SOLVED
        return Status.ATTEMPTED if slug in self.attempts else Status.NOT_STARTED

    def runs(self, slug: str) -> int:
        found = self.attempts.get(slug)
        return found.runs if found else 0

    def count(self, status: str, slugs: Sequence[str]) -> int:
        """How many of ``slugs`` stand at ``status`` (a :class:`Status` or its value)."""
        return sum(1 for slug in slugs if self.status(slug) == status)


def graded_runs_of(learner: str) -> ColumnElement[bool]:
    """The runs a learner sent with Run: not their tries, not a regrade's copies."""
    return and_(
        Submission.learner_id == learner,
        Submission.kind == SubmissionKind.GRADE.value,
        Submission.regrade_of.is_(None),
    )


def learner_progress(sessions: sessionmaker[Session], learner: str, solved: Mapping[str, datetime]) -> LearnerProgress:
    """``learner``'s progress: ``solved`` as the grading recorded it, and their graded runs of each exercise."""
    query = (
        select(Submission.exercise, func.count(), func.max(Submission.created_at))
        .where(graded_runs_of(learner))
        .group_by(Submission.exercise)
    )
    with sessions() as session:
        rows = session.execute(query).all()
    return LearnerProgress(solved=solved, attempts={slug: Attempts(count, as_utc(last)) for slug, count, last in rows})


class Why(enum.StrEnum):
    """Why an exercise is the one to open next."""

    CONTINUE = "continue"  # the learner's last run was of it, and it is not solved yet
    NEXT = "next"  # the first unsolved one after the one solved last
    START = "start"  # nothing run yet: the first of the roadmap


@dataclass(frozen=True)
class NextUp:
    slug: str
    why: Why


def next_up(ordered: Sequence[str], progress: LearnerProgress) -> NextUp | None:
    """What to open next among ``ordered`` (slugs in roadmap order); None once every one is solved.

    The exercise last run, while it is unsolved; else the first unsolved one after the exercise
    solved last (wrapping round to those skipped before it); else, with nothing run, the first.
    """
    if all(slug in progress.solved for slug in ordered):
        return None
    ran = [slug for slug in ordered if slug in progress.attempts]
    last_run = max(ran, key=lambda slug: progress.attempts[slug].last_run_at, default=None)
    if last_run is not None and last_run not in progress.solved:
        return NextUp(last_run, Why.CONTINUE)
    done = [slug for slug in ordered if slug in progress.solved]
    if not done:  # nothing run either: a run would have been the last, solved or not
        return NextUp(ordered[0], Why.START)
    last_solved = max(done, key=lambda slug: progress.solved[slug])
    after = first_unsolved_after(ordered, last_solved, progress.solved)
    assert after is not None  # some exercise is unsolved
    return NextUp(after, Why.NEXT)


def first_unsolved_after(ordered: Sequence[str], slug: str, solved: Container[str]) -> str | None:
    """The first unsolved slug after ``slug`` in ``ordered``, else the first unsolved before it; None if none is."""
    here = ordered.index(slug) if slug in ordered else len(ordered)
    around = [*ordered[here + 1 :], *ordered[:here]]
    return next((s for s in around if s not in solved), None)
