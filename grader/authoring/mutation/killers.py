"""The order in which a derived mutant's checks run, learned from earlier analyses of the same exercise.

A mutant stops at its first failing check (:func:`grader.grading.engine.grade_until_failure`), so the sooner
a check that kills it runs, the cheaper it is. Each analysis records, per mutant, the check that
killed it (in the user's cache, :mod:`grader.authoring.user_cache`); the next one runs that check first for
that mutant, then the checks that killed most mutants. Without a record, and for a mutant that
survived last time, the exercise's own order is used. The order only saves time: a mutant that
passes every check out of order is graded again in the exercise's order, where its checks see the
state earlier checks left, as a student's run does. A mutant killed out of order is not: a kill
that only another order's state could make is possible in principle, so the first analysis (no
record, as on a clean clone) runs exactly the exercise's order; the learned one gave every mutant
of the shipped exercises the same verdict.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from grader.authoring import user_cache
from grader.exercise import Exercise

KIND = "mutation-order"


@dataclass(frozen=True)
class Killers:
    """For each mutant (by id), the check that killed it last time; and those that survived."""

    exercise: str
    checks: tuple[str, ...]  # the exercise's check ids, in its order
    of: dict[str, str] = field(default_factory=dict)
    survived: frozenset[str] = frozenset()

    @classmethod
    def learned(cls, exercise: Exercise) -> Killers:
        """What earlier analyses of ``exercise`` recorded (checks it no longer has are forgotten)."""
        checks = tuple(c.id for c in exercise.checks)
        found = user_cache.load(KIND, exercise.slug)
        found = found if isinstance(found, dict) else {}
        recorded, survived = found.get("killers"), found.get("survived")
        known = set(checks)
        of = {m: c for m, c in recorded.items() if c in known} if isinstance(recorded, dict) else {}
        return cls(exercise.slug, checks, of, frozenset(survived) if isinstance(survived, list) else frozenset())

    def ranking(self) -> list[str]:
        """The checks, those that killed most mutants first (ties in the exercise's order)."""
        kills = Counter(self.of.values())
        return sorted(self.checks, key=lambda c: -kills[c])

    def order_for(self, mutant: str) -> list[str]:
        """The checks to run on ``mutant``: the one that killed it last time first, then :meth:`ranking`; for one
        that survived, the exercise's order (it will most likely pass them all, and be judged in that order)."""
        if mutant in self.survived:
            return list(self.checks)
        ranking = self.ranking()
        killer = self.of.get(mutant)
        return [killer, *(c for c in ranking if c != killer)] if killer else ranking

    def store(self, kills: Iterable[tuple[str, str]], survived: Iterable[str]) -> None:
        """Record this analysis: ``(mutant, check that killed it)`` pairs, and the survivors (the last is forgotten)."""
        user_cache.store(KIND, self.exercise, {"killers": dict(kills), "survived": sorted(survived)})
