"""A learner's profile: their runs counted, their latest runs, and how many they sent each day.

Only what the learner sent counts (graded runs and tries), never a regrade's copies.
"""

from __future__ import annotations

from collections.abc import Container, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from sqlalchemy import and_, func, select
from sqlalchemy.orm import Session, sessionmaker

from app.curriculum.catalog import RoadmapSection
from app.curriculum.progress import graded_runs_of
from app.models import Submission, SubmissionKind, SubmissionStatus, as_utc

#: What a run's state reads as; a finished run's reason says more where it was stopped or timed out.
_VERDICTS = {"queued": "queued", "running": "running", "pass": "passed", "fail": "failed", "error": "error",
             "stopped": "stopped", "timeout": "timed out"}  # fmt: skip


@dataclass(frozen=True)
class RunCounts:
    """How many graded runs a learner sent, how many passed, and how many tries."""

    runs: int = 0
    passed: int = 0
    tries: int = 0


@dataclass(frozen=True)
class RecentRun:
    """One of a learner's latest graded runs."""

    id: str
    slug: str
    state: str  # its status, or "stopped" / "timeout" for a run that ended so
    created_at: datetime
    points: float | None
    max_points: float | None

    @property
    def verdict(self) -> str:
        return _VERDICTS.get(self.state, self.state)


Tally = dict[str, tuple[int, int]]  # difficulty (or "all") → (solved, of how many)
Table = tuple[list[tuple[RoadmapSection, Tally]], Tally]


def solved_table(sections: Sequence[RoadmapSection], solved: Container[str]) -> Table:
    """Each section's solved exercises by difficulty and in all, and the same for the whole roadmap."""
    rows = []
    totals: Tally = {}
    for section in sections:
        tally = section.solved_by_difficulty(solved)
        tally["all"] = (sum(done for done, _ in tally.values()), sum(n for _, n in tally.values()))
        rows.append((section, tally))
        for name, (done, n) in tally.items():
            before = totals.get(name, (0, 0))
            totals[name] = (before[0] + done, before[1] + n)
    return rows, totals


def run_counts(sessions: sessionmaker[Session], learner: str) -> RunCounts:
    query = (
        select(Submission.kind, Submission.status, func.count())
        .where(Submission.learner_id == learner, Submission.regrade_of.is_(None))
        .group_by(Submission.kind, Submission.status)
    )
    with sessions() as session:
        rows = session.execute(query).all()
    graded = {status: n for kind, status, n in rows if kind == SubmissionKind.GRADE.value}
    tries = sum(n for kind, _, n in rows if kind == SubmissionKind.TRY.value)
    return RunCounts(runs=sum(graded.values()), passed=graded.get(SubmissionStatus.PASS.value, 0), tries=tries)


def recent_runs(sessions: sessionmaker[Session], learner: str, limit: int = 8) -> list[RecentRun]:
    """The learner's latest graded runs, newest first."""
    query = select(Submission).where(graded_runs_of(learner)).order_by(Submission.created_at.desc()).limit(limit)
    with sessions() as session:
        rows = list(session.scalars(query))
    return [_recent(row) for row in rows]


def _recent(row: Submission) -> RecentRun:
    result = row.result if isinstance(row.result, dict) else {}
    reason = result.get("reason")
    state = reason if reason in ("stopped", "timeout") else row.status
    points, most = result.get("points"), result.get("max_points")
    return RecentRun(
        id=row.id, slug=row.exercise, state=state, created_at=as_utc(row.created_at),
        points=points if isinstance(points, int | float) else None,
        max_points=most if isinstance(most, int | float) else None,
    )  # fmt: skip


def daily_counts(sessions: sessionmaker[Session], learner: str, since: date) -> dict[date, tuple[int, int]]:
    """Each UTC day from ``since`` on with what the learner sent that day: (graded runs, tries)."""
    start = datetime.combine(since, time(), tzinfo=UTC)
    query = select(Submission.created_at, Submission.kind).where(
        and_(Submission.learner_id == learner, Submission.regrade_of.is_(None), Submission.created_at >= start)
    )
    counts: dict[date, tuple[int, int]] = {}
    with sessions() as session:
        for created, kind in session.execute(query):
            day = as_utc(created).astimezone(UTC).date()
            runs, tries = counts.get(day, (0, 0))
            counts[day] = (runs, tries + 1) if kind == SubmissionKind.TRY.value else (runs + 1, tries)
    return counts
