"""Regrading: runs graded again, through the queue, after an exercise changed; the old verdict kept beside the new.

Each run to regrade gets a copy (a submission with ``regrade_of`` pointing at it, the same learner and
code) that goes through the queue like any submission, so any number of workers grade them, with the
leases, retries and sweeping every run has. The original row is never touched. Runs are fed to the
queue a window at a time, so a regrade of a whole class never fills the queue that students use.
Afterwards each affected student's solved mark is brought in line with the current verdicts.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from typing import Literal

from redis.exceptions import RedisError
from sqlalchemy import delete, select

from app.courses.runs import load_runs, stopped
from app.models import Enrollment, Progress, Submission, SubmissionKind, SubmissionStatus, User, as_utc
from app.services import Services
from grader.results import EventType, QueuedData

_FINISHED = [SubmissionStatus.PASS.value, SubmissionStatus.FAIL.value, SubmissionStatus.ERROR.value]
Which = Literal["all", "latest"]


class RegradeError(Exception):
    """A regrade that cannot start (an unknown exercise or course); the message says which."""


@dataclass(frozen=True)
class Grading:
    status: str
    points: float
    version: str | None
    failing: tuple[str, ...]  # ids of the checks that did not pass

    def describe(self) -> str:
        return f"{self.status} {self.points:g} pts (version {self.version or 'unknown'})"


@dataclass(frozen=True)
class Change:
    """One run: who sent it, its verdict before and after."""

    submission_id: str
    learner_id: str
    who: str
    before: Grading
    after: Grading | None  # None: not finished before the deadline

    @property
    def changed(self) -> bool:
        return self.after is not None and (self.before.status, self.before.failing, self.before.points) != (
            self.after.status, self.after.failing, self.after.points
        )  # fmt: skip


@dataclass(frozen=True)
class Report:
    slug: str
    batch: str
    version: str
    changes: list[Change]
    solved_now: list[str]  # who gained the solved mark
    unsolved_now: list[str]  # who lost it

    @property
    def unfinished(self) -> list[Change]:
        return [c for c in self.changes if c.after is None]

    @property
    def stale(self) -> list[Change]:
        """Regraded by a worker that still has another version of the exercise loaded."""
        return [c for c in self.changes if c.after is not None and c.after.version != self.version]


def select_runs(services: Services, slug: str, which: Which, course_id: str | None) -> list[Submission]:
    """The graded runs (not regrades) of ``slug`` to grade again: all, or each learner's latest.

    A run its learner stopped is none of them: it never reached a verdict of the checks, and grading its
    code to the end would give it one the learner chose not to wait for (a pass, even, and the exercise
    marked solved). "Latest" is the latest run that is not stopped.
    """
    with services.sessions() as session:
        query = select(Submission).where(
            Submission.exercise == slug,
            Submission.kind == SubmissionKind.GRADE.value,  # a Try it was never graded: there is no verdict to redo
            Submission.regrade_of.is_(None),
            Submission.status.in_(_FINISHED),
        )
        if course_id is not None:
            learners = select(User.learner_id).join(Enrollment, Enrollment.user_id == User.id)
            query = query.where(Submission.learner_id.in_(learners.where(Enrollment.course_id == course_id)))
        runs = list(session.scalars(query.order_by(Submission.created_at, Submission.id)))
    runs = [run for run in runs if not stopped(run.result)]
    if which == "latest":
        latest = {run.learner_id: run for run in runs}  # oldest first: the last one kept is the newest
        runs = sorted(latest.values(), key=lambda run: (as_utc(run.created_at), run.id))
    return runs


def regrade(
    services: Services,
    slug: str,
    which: Which,
    *,
    course_id: str | None = None,
    window: int | None = None,
    timeout: float = 3600.0,
    progress: Callable[[int, int], None] = lambda done, total: None,
) -> Report:
    """Grade the selected runs of ``slug`` again through the queue and wait for every new verdict."""
    exercise = services.exercises.get(slug)
    if exercise is None:
        raise RegradeError(f"There is no exercise {slug!r} that loads (see `mlkata check {slug}`).")
    if course_id is not None:
        _require_course(services, course_id, slug)
    originals = select_runs(services, slug, which, course_id)
    solved_before = _solved(services, slug, {run.learner_id for run in originals})
    batch = str(uuid.uuid4())
    copies = _copies(services, originals, batch)
    feed = max(1, window or services.settings.max_queue // 2)
    pending, waiting = list(copies), set[str]()
    deadline = time.monotonic() + timeout
    done: dict[str, Submission] = {}
    while (pending or waiting) and time.monotonic() < deadline:
        while pending and len(waiting) < feed:
            copy_id = pending.pop(0)
            waiting.add(copy_id)
            with suppress(RedisError):  # recorded as queued: the sweeper queues it once Redis answers
                services.queue.enqueue(copy_id)
        finished = _finished(services, waiting)
        done.update(finished)
        waiting -= set(finished)
        progress(len(done), len(copies))
        if waiting:
            time.sleep(0.2)
    who = _names(services, {run.learner_id for run in originals})
    for learner in {run.learner_id for run in originals} - set(who):
        who[learner] = f"anonymous {learner[:8]}"
    changes = [
        Change(run.id, run.learner_id, who[run.learner_id],
               _grading(run), _grading(done[copies_of]) if (copies_of := _copy_of(copies, run.id)) in done else None)
        for run in originals
    ]  # fmt: skip
    learners = {run.learner_id for run in originals}
    _align_progress(services, slug, learners)
    solved_after = _solved(services, slug, learners)
    gained, lost = sorted(solved_after - solved_before), sorted(solved_before - solved_after)
    return Report(
        slug, batch, exercise.version, changes, [who.get(x, x) for x in gained], [who.get(x, x) for x in lost]
    )


def _require_course(services: Services, course_id: str, slug: str) -> None:
    from app.courses.courses import Courses  # the pages' module, kept out of the worker's imports

    course = Courses(services.sessions).get(course_id)
    if course is None:
        raise RegradeError(f"There is no course {course_id!r} (its id is in its address: /courses/<id>).")
    if slug not in course.slugs:
        raise RegradeError(f"The course “{course.title}” does not include {slug!r}.")


def _copies(services: Services, originals: list[Submission], batch: str) -> dict[str, str]:
    """Record a queued copy of each run; return copy id → original id."""
    copies: dict[str, str] = {}
    with services.events.writing() as session:
        for run in originals:
            copy = Submission(id=str(uuid.uuid4()), learner_id=run.learner_id, exercise=run.exercise, code=run.code,
                              regrade_of=run.id, regrade_batch=batch)  # fmt: skip
            session.add(copy)
            session.flush()
            services.events.add(session, copy.id, EventType.QUEUED, QueuedData(position=None).model_dump())
            copies[copy.id] = run.id
    return copies


def _copy_of(copies: dict[str, str], original: str) -> str | None:
    return next((copy for copy, of in copies.items() if of == original), None)


def _finished(services: Services, ids: set[str]) -> dict[str, Submission]:
    if not ids:
        return {}
    with services.sessions() as session:
        rows = session.scalars(select(Submission).where(Submission.id.in_(ids), Submission.status.in_(_FINISHED)))
        return {row.id: row for row in rows}


def _grading(submission: Submission) -> Grading:
    result = submission.result if isinstance(submission.result, dict) else {}
    failing = tuple(str(t.get("id")) for t in result.get("tests") or [] if t.get("status") != "pass")
    return Grading(submission.status, float(result.get("points") or 0), submission.exercise_version, failing)


def _names(services: Services, learners: set[str]) -> dict[str, str]:
    if not learners:
        return {}
    with services.sessions() as session:
        rows = session.execute(select(User.learner_id, User.email).where(User.learner_id.in_(learners))).all()
    return {learner: email for learner, email in rows}


def _solved(services: Services, slug: str, learners: set[str]) -> set[str]:
    with services.sessions() as session:
        rows = session.scalars(select(Progress.learner_id).where(Progress.exercise == slug)).all()
    return {learner for learner in rows if learner in learners}


def _align_progress(services: Services, slug: str, learners: set[str]) -> None:
    """Make each learner's solved mark say whether a run of theirs passes now.

    A passing regrade marks the exercise solved as any pass does; only a mark that no current verdict
    supports any more has to go.
    """
    runs = load_runs(services.sessions, learners, [slug])
    with services.sessions.begin() as session:
        for learner in sorted(learners):
            passing = next((run for run in runs if run.learner_id == learner and run.passed), None)
            marked = session.get(Progress, (learner, slug))
            if passing is None and marked is not None:
                session.execute(delete(Progress).where(Progress.learner_id == learner, Progress.exercise == slug))
            elif passing is not None and marked is None:
                session.add(Progress(learner_id=learner, exercise=slug, solved_at=passing.created_at,
                                     submission_id=passing.id))  # fmt: skip
