"""Mutation analysis of an exercise's checks: grade every mutant of its reference, and score the checks.

Every mutant is graded through the real grader and sandbox (the warm path), several at once, up to
its first failing check (:func:`grader.grading.engine.grade_until_failure`, in the order of
:mod:`grader.authoring.mutation.killers`): a killed mutant needs nothing more. A
mutant is killed when its grade is not a pass; it survives when it passes every check. The score
is killed ÷ non-equivalent: the survivors the exercise accepts as equivalent to the reference
(``[mutation.equivalent]``) count neither way. A grade the grader could not make (the sandbox
failed) kills nothing: it is reported, and the analysis does not hold.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field

from grader.authoring.mutation.derivations import derived_mutants
from grader.authoring.mutation.killers import Killers
from grader.authoring.mutation.mutants import Derived, Mutant
from grader.exercise import Exercise
from grader.grading import grade, grade_until_failure
from grader.results import GradeResult, Reason, Status


@dataclass(frozen=True)
class Outcome:
    """One mutant and its grade."""

    mutant: Mutant
    result: GradeResult

    @property
    def graded(self) -> bool:
        """False when the grader itself failed (not the mutant): such a grade is no evidence."""
        return not (self.result.status is Status.ERROR and self.result.reason is Reason.INTERNAL_ERROR)

    @property
    def killed(self) -> bool:
        return self.graded and self.result.status is not Status.PASS

    @property
    def passed_checks(self) -> list[str]:
        return [t.id for t in self.result.tests if t.status is Status.PASS]

    @property
    def crashed_checks(self) -> list[str]:
        """Checks that failed with ``internal_error`` on this mutant: a bug in the check, not a kill to trust."""
        return [t.id for t in self.result.tests if t.reason is Reason.INTERNAL_ERROR]


@dataclass(frozen=True)
class Analysis:
    """The outcome of every mutant of one exercise's reference, against what its ``[mutation]`` table accepts."""

    exercise: str
    reference: str
    derived: Derived
    outcomes: tuple[Outcome, ...]
    minimum: float
    accepted: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    workers: int = 1
    #: Why no mutant was graded (the reference does not pass), if so.
    problem: str | None = None

    @property
    def killed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.killed]

    @property
    def equivalent(self) -> list[Outcome]:
        """Survivors the exercise accepts as equivalent to the reference."""
        return [o for o in self.outcomes if o.graded and not o.killed and o.mutant.id in self.accepted]

    @property
    def survivors(self) -> list[Outcome]:
        """Survivors not accepted as equivalent: what the checks miss."""
        return [o for o in self.outcomes if o.graded and not o.killed and o.mutant.id not in self.accepted]

    @property
    def ungraded(self) -> list[Outcome]:
        return [o for o in self.outcomes if not o.graded]

    @property
    def stale(self) -> list[str]:
        """Accepted ids that no mutant has any more (the reference changed)."""
        ids = {m.id for m in self.derived.mutants}
        return [i for i in self.accepted if i not in ids]

    @property
    def refuted(self) -> list[Outcome]:
        """Mutants accepted as equivalent that the checks kill: they are not equivalent."""
        return [o for o in self.killed if o.mutant.id in self.accepted]

    @property
    def score(self) -> float:
        """Killed ÷ non-equivalent (1 when every mutant is equivalent or there are none)."""
        counted = len(self.killed) + len(self.survivors)
        return len(self.killed) / counted if counted else 1.0

    @property
    def ok(self) -> bool:
        return self.problem is None and self.score >= self.minimum and not (self.stale or self.refuted or self.ungraded)


def default_workers() -> int:
    """One grading thread per CPU this process may use."""
    return len(os.sched_getaffinity(0)) or 1


def analyse(
    exercise: Exercise,
    derived: Derived | None = None,
    *,
    jailed: bool = True,
    workers: int | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
    reference_passes: bool | None = None,
) -> Analysis:
    """Grade every mutant of ``exercise``'s reference (``derived``, unless given) and score its checks.

    ``on_outcome`` is called, from the calling thread, as each grade finishes, for progress.
    ``reference_passes`` is whether the reference passes, when the caller graded it already
    (``mlkata check`` does): it is graded here otherwise.
    """
    reference = exercise.reference
    derived = derived if derived is not None else derived_mutants(reference)
    spec = exercise.config.mutation
    workers = workers or default_workers()
    began = time.monotonic()

    def finish(outcomes: list[Outcome], problem: str | None = None) -> Analysis:
        return Analysis(
            exercise.slug, reference, derived, tuple(outcomes), spec.minimum, dict(spec.equivalent),
            round(time.monotonic() - began, 2), workers, problem,
        )  # fmt: skip

    if reference_passes is None:
        baseline = grade(exercise, reference, jailed=jailed)
        if baseline.status is not Status.PASS:
            return finish([], f"the reference does not pass ({baseline.reason.value}): no mutant can be scored")
    elif not reference_passes:
        return finish([], "the reference does not pass: no mutant can be scored")
    killers = Killers.learned(exercise)

    def judge(mutant: Mutant) -> GradeResult:
        first = killers.order_for(mutant.id)
        result = grade_until_failure(exercise, mutant.source, first, jailed=jailed)
        if result.status is Status.PASS and first != list(killers.checks):
            # Checks see the state earlier ones left: a survivor out of order is judged in the exercise's order.
            return grade_until_failure(exercise, mutant.source, jailed=jailed)
        return result

    order = {m.id: n for n, m in enumerate(derived.mutants)}
    outcomes: list[Outcome] = []
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="mutant") as pool:
        futures = {pool.submit(judge, m): m for m in derived.mutants}
        for future in as_completed(futures):
            outcome = Outcome(futures[future], future.result())
            outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)
    outcomes.sort(key=lambda o: order[o.mutant.id])
    killers.store(
        ((o.mutant.id, o.result.tests[-1].id) for o in outcomes if o.killed and o.result.tests),
        (o.mutant.id for o in outcomes if o.graded and not o.killed),
    )
    return finish(outcomes)
