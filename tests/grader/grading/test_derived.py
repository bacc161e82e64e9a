"""Mistakes derived from the reference: a hint for each change on a line the known mistakes say it is about."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grader.exercise import KnownMistake, load_exercise
from grader.grading import grade
from grader.grading.mistakes import derived_mistakes, matching
from grader.grading.mistakes.replay import OutOfTime, allowance, replay_batch
from grader.grading.proxy import Call
from grader.results import Status

REFERENCE = "def add(a, b):\n    total = a * b\n    return total\n"
MINUS = "@@ -1,3 +1,3 @@\n def add(a, b):\n-    total = a * b\n+    total = a - b\n     return total\n"


def answer(module: object) -> object:
    try:
        return module.add(3, 4)  # type: ignore[attr-defined]
    except Exception as exc:  # a deleted statement, a @ on integers
        return type(exc)


def test_a_change_into_a_power_is_never_derived(make_exercise: Callable[..., Path]) -> None:
    # Replayed in the grader's own process, a power of an input (a cache of 10^15 tokens) would take it over.
    folder = make_exercise(files={"reference.py": REFERENCE, "mutants/minus.diff": MINUS})
    with (folder / "exercise.toml").open("a") as toml:
        toml.write('\n[mutants.minus]\nmistake = "Subtracts."\nhint = "plus"\n')
    derived = derived_mistakes(load_exercise(folder))
    assert derived and all(m.name.startswith("derived/plus/") for m in derived)
    answers = [answer(m.fresh_module()) for m in derived]
    assert 3 / 4 in answers and 3 + 4 in answers  # a * b → a / b, a + b
    assert 3**4 not in answers  # not a ** b


def test_a_derived_mistake_that_never_returns_is_stopped_inside_its_call() -> None:
    loop = "def f(n):\n    while n >= 0:\n        n += 1\n"
    endless = KnownMistake.from_source("derived/x/1", "", "x", loop, "f", bounded=True)
    written = KnownMistake.from_source("known", "", "x", "def f(n):\n    return n\n", "f")
    calls = [Call("f", (1,), 0)]
    with allowance(0.2), pytest.raises(OutOfTime):
        replay_batch(endless.fresh_module(), calls)
    with allowance(0.2):
        assert replay_batch(written.fresh_module(), calls) == [(1, None)]  # the author's own code runs as it is


def never_returns(mistake: KnownMistake) -> bool:
    with allowance(0.1):
        try:
            replay_batch(mistake.fresh_module(), [Call("add", (2, 3), 0)])
        except OutOfTime:
            return True
    return False


COUNTING = """\
def add(a, b):
    total = a
    i = 0
    while i < b:
        total += 1
        i += 1
    return total
"""
STEPS_OF_TWO = "@@ -5,3 +5,3 @@\n         total += 1\n-        i += 1\n+        i += 2\n     return total\n"


def test_grading_a_wrong_answer_ends_when_a_derived_mistake_would_loop_forever(
    make_exercise: Callable[..., Path],
) -> None:
    # Known mistakes on the line `i += 1` derive `i += 0`: replayed in the grader's process, it never returns.
    folder = make_exercise(files={"reference.py": COUNTING, "mutants/steps-of-two.diff": STEPS_OF_TWO})
    with (folder / "exercise.toml").open("a") as toml:
        toml.write('\n[mutants.steps-of-two]\nmistake = "Counts in steps of two."\nhint = "plus"\n')
    exercise = load_exercise(folder)
    assert any(never_returns(mistake) for mistake in derived_mistakes(exercise))  # the hazard is there
    result = grade(exercise, "def add(a, b):\n    return a + b + 1\n", jailed=False)
    assert result.status is Status.FAIL and all(t.status is Status.FAIL for t in result.tests)


def test_a_written_mistake_is_named_before_derived_ones_can_spend_the_allowance() -> None:
    reference = KnownMistake.from_source("reference", "", "", "def f(n):\n    return n\n", "reference")
    written = KnownMistake.from_source("doubles", "Doubles.", "x", "def f(n):\n    return 2 * n\n", "doubles")
    loop = "def f(n):\n    while n >= 0:\n        n += 1\n"
    endless = KnownMistake.from_source("derived/x/1", "", "x", loop, "f", bounded=True)
    calls = [Call("f", (3,), 0, value=6)]  # the solution answered 6 where the reference answers 3
    with allowance(0.3):
        assert matching([endless, written], reference, calls) == ["doubles"]
    with allowance(0.3):
        assert matching([endless], reference, calls) == []  # derived alone: the allowance ends the endless one
