"""Which levels of a hint a learner may read: level n opens after n failed runs of the exercise that gave it.

A run gives a hint when its result names it (a check's hint or the most likely mistake's), so the
first level is what such a run showed already, and each further failed run that gives the hint
opens one more level: the formula after a second try, the code after a third. A learner who solved
the exercise reads every level. Only graded runs the learner sent count, not tries nor regrades,
and only this learner's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session, sessionmaker

from app.models import Submission, SubmissionKind, SubmissionStatus

_FAILED = [SubmissionStatus.FAIL.value, SubmissionStatus.ERROR.value]


@dataclass(frozen=True)
class HintAccess:
    """How far one learner may read one hint."""

    levels: int  # how many levels the hint has
    runs: int  # failed runs that gave it (counted up to ``levels``)
    solved: bool

    @property
    def open_levels(self) -> int:
        return self.levels if self.solved else min(self.runs, self.levels)

    def runs_until(self, level: int) -> int:
        """Failed runs that give the hint still needed before ``level`` opens (0: it is open)."""
        return 0 if level <= self.open_levels else level - self.runs

    def refusal(self, level: int) -> str:
        """Why ``level`` is closed, and what opens it."""
        needed = self.runs_until(level)
        runs = f"{needed} {'more ' if self.runs else ''}failed run{'s' if needed != 1 else ''}"
        return (
            f"Level {level} of this hint opens after {runs} that give{'s' if needed == 1 else ''} it "
            "(or once you solve the exercise)."
        )


def hint_access(
    sessions: sessionmaker[Session], learner: str, slug: str, hint_id: str, *, levels: int, solved: bool
) -> HintAccess:
    """How far ``learner`` may read the hint ``hint_id`` of ``slug``, which has ``levels`` levels."""
    if solved:
        return HintAccess(levels, levels, solved=True)
    return HintAccess(levels, _failed_runs_giving(sessions, learner, slug, hint_id, enough=levels), solved=False)


def _failed_runs_giving(sessions: sessionmaker[Session], learner: str, slug: str, hint_id: str, *, enough: int) -> int:
    query = (
        select(Submission.result)
        .where(
            Submission.learner_id == learner,
            Submission.exercise == slug,
            Submission.kind == SubmissionKind.GRADE.value,
            Submission.regrade_of.is_(None),
            Submission.status.in_(_FAILED),
            # A coarse filter in the database (the id as a JSON string somewhere in the result); the
            # result's structure is what decides, below.
            cast(Submission.result, Text).contains(json.dumps(hint_id), autoescape=True),
        )
        .order_by(Submission.created_at.desc())
        .execution_options(yield_per=20)
    )
    count = 0
    with sessions() as session:
        results = session.scalars(query)
        try:
            for result in results:
                count += gives(result, hint_id)
                if count >= enough:
                    break
        finally:
            results.close()  # read in batches: the cursor stays open until closed
    return count


def gives(result: Any, hint_id: str) -> bool:
    """Whether a run's result names the hint: for a check it failed, or for its most likely mistake."""
    if not isinstance(result, dict):
        return False
    mistake = result.get("mistake")
    if isinstance(mistake, dict) and mistake.get("hint_id") == hint_id:
        return True
    tests = result.get("tests")
    return isinstance(tests, list) and any(
        isinstance(t, dict) and t.get("hint_id") == hint_id and t.get("status") != "pass" for t in tests
    )
