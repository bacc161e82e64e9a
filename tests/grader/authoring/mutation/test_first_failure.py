"""Mutation analysis grades a derived mutant only up to its first failing check, in the order that killed it before.

The exercise here has three checks; ``a - b`` fails the first and the third, ``a * b`` only the
third (2 * 2 = 2 + 2 and 0 * 0 = 0 + 0), so where a run stops, and in which order it ran, shows in its result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from grader.authoring import user_cache
from grader.authoring.mutation import Killers, analyse, derive_mutants
from grader.authoring.mutation import analysis as analysis_module
from grader.exercise import Exercise, load_exercise
from grader.grading import engine as grading
from grader.grading.check_run import Checked
from grader.grading.engine import grade, grade_until_failure
from grader.results.records import GradeResult, Status

THREE_CHECKS = """\
from grader.checks import check, expect_integer


@check("Adds two and two", public=True)
def two_and_two(student):
    expect_integer(student.add(2, 2), 4, what="add(2, 2)")


@check("Adds zeros")
def zeros(student):
    expect_integer(student.add(0, 0), 0, what="the sum of zeros")


@check("Adds one and one")
def one_and_one(student):
    expect_integer(student.add(1, 1), 2, what="the sum of ones")
"""
MINUS = "def add(a, b):\n    return a - b\n"
TIMES = "def add(a, b):\n    return a * b\n"
ORDER = ["two_and_two", "zeros", "one_and_one"]


@pytest.fixture
def three_checks(make_exercise: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Exercise:
    monkeypatch.setenv("MLKATA_CACHE_DIR", str(tmp_path / "cache"))  # no order learned by another test
    return load_exercise(make_exercise(files={"checks.py": THREE_CHECKS}))


def test_a_grade_until_failure_stops_at_the_first_failing_check_undiagnosed(
    three_checks: Exercise, monkeypatch: pytest.MonkeyPatch
) -> None:
    diagnosed: list[str] = []

    def recording(outcome: Checked, exercise: Exercise, calls: list[object]) -> Checked:
        diagnosed.append(exercise.slug)
        return outcome

    monkeypatch.setattr(grading, "with_pattern", recording)
    result = grade_until_failure(three_checks, MINUS)
    assert result.status is Status.FAIL
    assert [(t.id, t.status) for t in result.tests] == [("two_and_two", Status.FAIL)]
    assert result.mistake is None and diagnosed == []
    full = grade(three_checks, MINUS)
    assert [t.id for t in full.failing()] == ["two_and_two", "one_and_one"]
    assert diagnosed == ["adder", "adder"]  # a full grade seeks each failure's symptom


def test_the_checks_named_first_run_first(three_checks: Exercise) -> None:
    result = grade_until_failure(three_checks, TIMES, ["one_and_one", "no_such_check"])
    assert [(t.id, t.status) for t in result.tests] == [("one_and_one", Status.FAIL)]
    passing = grade_until_failure(three_checks, "def add(a, b):\n    return a + b\n", ["zeros"])
    assert passing.status is Status.PASS
    assert [t.id for t in passing.tests] == ["zeros", "two_and_two", "one_and_one"]


def test_the_killers_are_stored_and_the_next_analysis_runs_each_mutants_killer_first(three_checks: Exercise) -> None:
    first = analyse(three_checks)
    # No order learned: the exercise's own, so a mutant killed by the last check ran all three.
    killed_by = {o.mutant.id: [t.id for t in o.result.tests] for o in first.killed}
    assert killed_by["arithmetic@L2: a + b -> a * b"] == ORDER
    assert killed_by["arithmetic@L2: a + b -> a - b"] == ["two_and_two"]
    stored = user_cache.load("mutation-order", three_checks.slug)
    assert stored == {"killers": {o.mutant.id: o.result.tests[-1].id for o in first.killed}, "survived": []}
    assert Killers.learned(three_checks).order_for("arithmetic@L2: a + b -> a * b")[0] == "one_and_one"

    second = analyse(three_checks)
    assert [o.mutant.id for o in second.killed] == [o.mutant.id for o in first.killed]
    assert all(len(o.result.tests) == 1 for o in second.killed)  # each killed by the first check it ran
    assert second.score == first.score


def test_the_checks_that_killed_most_run_first_for_a_new_mutant(three_checks: Exercise) -> None:
    user_cache.store("mutation-order", three_checks.slug, {"killers": {"a": "one_and_one", "b": "one_and_one"}})
    killers = Killers.learned(three_checks)
    assert killers.ranking() == ["one_and_one", "two_and_two", "zeros"]
    assert killers.order_for("new") == killers.ranking()
    user_cache.store("mutation-order", three_checks.slug, {"killers": {"a": "a_check_now_gone"}})
    assert Killers.learned(three_checks).order_for("a") == ORDER


def test_a_survivor_out_of_order_is_judged_again_in_the_exercises_order(
    make_exercise: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MLKATA_CACHE_DIR", str(tmp_path / "cache"))
    only_two_and_two = THREE_CHECKS.replace("(0, 0), 0", "(2, 2), 4").replace("(1, 1), 2", "(2, 2), 4")
    weak = load_exercise(make_exercise(files={"checks.py": only_two_and_two}))
    user_cache.store("mutation-order", weak.slug, {"killers": {"x": "one_and_one"}})
    graded: list[list[str]] = []

    def recording(exercise: Exercise, source: str, first: Sequence[str] = (), **kwargs: bool) -> GradeResult:
        graded.append(list(first))
        return grade_until_failure(exercise, source, first, **kwargs)

    monkeypatch.setattr(analysis_module, "grade_until_failure", recording)
    [survivor] = analyse(weak).survivors
    assert survivor.mutant.id == "arithmetic@L2: a + b -> a * b"
    assert survivor.passed_checks == ORDER
    assert graded.count(["one_and_one", "two_and_two", "zeros"]) == 3  # every mutant, learned order first
    assert graded.count([]) == 1  # the survivor, again, in the exercise's order

    graded.clear()  # next time the survivor is known: it runs in the exercise's order at once, and once
    assert [o.mutant.id for o in analyse(weak).survivors] == [survivor.mutant.id]
    learned = ["one_and_one", "two_and_two", "zeros"]  # one_and_one killed both others
    assert sorted(graded) == sorted([ORDER, learned, learned])


def test_a_reference_graded_by_the_caller_is_not_graded_again(
    three_checks: Exercise, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_grade(*args: object, **kwargs: object) -> None:
        raise AssertionError("the reference was graded again")

    monkeypatch.setattr(analysis_module, "grade", no_grade)
    derived = derive_mutants(three_checks.reference_path.read_text(encoding="utf-8"))
    assert analyse(three_checks, derived, reference_passes=True).score == 1.0
    failed = analyse(three_checks, derived, reference_passes=False)
    assert failed.outcomes == () and failed.problem is not None and not failed.ok
