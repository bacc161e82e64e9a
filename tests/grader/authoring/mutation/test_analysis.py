"""Mutation analysis through the real sandbox, on a tiny exercise whose checks miss one mutant.

``add(a, b)`` is checked only on 2 + 2, so ``a * b`` (2 * 2 = 4) passes: of the three mutants of
``return a + b`` (``pass``, ``a - b``, ``a * b``), two are killed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from grader.authoring.mutation import Outcome, analyse, derive_mutants
from grader.exercise import load_exercise
from grader.results.records import GradeResult, Reason, Status
from tests.grader.authoring.mutation.mutation_support import KILLED, SURVIVOR, WEAK_CHECKS, weak_exercise


def test_the_score_is_killed_over_all_and_the_survivor_is_named_with_the_checks_it_passed(
    make_exercise: Callable[..., Path],
) -> None:
    exercise = weak_exercise(make_exercise, "\n[mutation]\nminimum = 0.9\n")
    analysis = analyse(exercise)
    assert [o.mutant.id for o in analysis.outcomes] == [
        m.id for m in derive_mutants("def add(a, b):\n    return a + b\n").mutants
    ]
    assert sorted(o.mutant.id for o in analysis.killed) == sorted(KILLED)
    [survivor] = analysis.survivors
    assert survivor.mutant.id == SURVIVOR
    assert survivor.passed_checks == ["two_and_two"]
    assert survivor.result.status is Status.PASS
    assert analysis.score == 2 / 3
    assert analysis.minimum == 0.9
    assert not analysis.ok
    assert analysis.workers >= 1 and analysis.seconds > 0


def test_without_a_minimum_the_score_is_reported_and_holds(make_exercise: Callable[..., Path]) -> None:
    analysis = analyse(weak_exercise(make_exercise), workers=1)
    assert analysis.minimum == 0.0
    assert analysis.score == 2 / 3
    assert analysis.ok


def test_a_survivor_accepted_as_equivalent_counts_neither_way(make_exercise: Callable[..., Path]) -> None:
    table = f'\n[mutation]\nminimum = 1\n\n[mutation.equivalent]\n"{SURVIVOR}" = "only for this test"\n'
    analysis = analyse(weak_exercise(make_exercise, table))
    assert [o.mutant.id for o in analysis.equivalent] == [SURVIVOR]
    assert analysis.survivors == []
    assert analysis.score == 1.0
    assert analysis.ok


def test_an_accepted_id_no_mutant_has_is_stale_and_a_killed_one_is_refuted(make_exercise: Callable[..., Path]) -> None:
    table = (
        "\n[mutation]\nminimum = 0.5\n\n[mutation.equivalent]\n"
        '"arithmetic@L7: a + b -> a * b" = "the line moved"\n'
        f'"{KILLED[1]}" = "wrongly believed equivalent"\n'
    )
    analysis = analyse(weak_exercise(make_exercise, table))
    assert analysis.stale == ["arithmetic@L7: a + b -> a * b"]
    assert [o.mutant.id for o in analysis.refuted] == [KILLED[1]]
    assert analysis.score == 2 / 3  # the refuted one still counts as killed
    assert not analysis.ok


def test_a_reference_that_does_not_pass_scores_nothing(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise(files={"checks.py": WEAK_CHECKS, "reference.py": "def add(a, b):\n    return a - b\n"})
    analysis = analyse(load_exercise(folder))
    assert analysis.outcomes == ()
    assert analysis.problem is not None and "the reference does not pass" in analysis.problem
    assert not analysis.ok


def test_a_grade_the_grader_could_not_make_kills_nothing() -> None:
    [mutant] = derive_mutants("x = 1 + 2\ny = 3\n").mutants[:1]
    broken = GradeResult(status=Status.ERROR, reason=Reason.INTERNAL_ERROR, message="no sandbox", exercise="adder")
    failed = GradeResult(status=Status.FAIL, reason=Reason.WRONG_ANSWER, message="1 of 1 failed", exercise="adder")
    assert not Outcome(mutant, broken).graded and not Outcome(mutant, broken).killed
    assert Outcome(mutant, failed).graded and Outcome(mutant, failed).killed
