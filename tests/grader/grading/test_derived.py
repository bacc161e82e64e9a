"""Mistakes derived from the reference: a hint for each change on a line the known mistakes say it is about."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from grader.exercise import load_exercise
from grader.grading.mistakes import derived_mistakes

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
