"""Naming the mistake from the output: wrong answers compared with the exercise's mutants.

The wrong solutions in ``wrong_solutions/`` were written independently of the KV exercise's
mutants, each in a style of its own, as students write them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from grader.exercise import Exercise
from grader.grading import engine as grading
from grader.grading.engine import grade
from grader.grading.mistakes.fingerprints import same_answer
from grader.results.records import Status

WRONG = Path(__file__).resolve().parents[1] / "wrong_solutions"
EXPECTED = {
    "float16": "float16",
    "query_from_wk": "query-from-keys",
    "mutates_cache": "mutates-input",
    "no_scaling_loops": "no-scaling",
    "divides_by_d": "scale-by-d",
    "naive_softmax": "unstable-softmax",
    "attends_before_appending": "no-append",
    "weights_times_keys": "keys-as-values",
    "newest_first": "prepend",
    "bytes_keys_only": "bytes-without-two",
}


def test_every_wrong_solution_is_named_here() -> None:
    assert {p.stem for p in WRONG.glob("*.py")} == set(EXPECTED)


@pytest.mark.parametrize(("solution", "mistake"), sorted(EXPECTED.items()))
def test_a_wrong_solution_is_told_its_own_mistake_once_with_one_hint(
    kv_exercise: Exercise, solution: str, mistake: str
) -> None:
    result = grade(kv_exercise, (WRONG / f"{solution}.py").read_text())
    assert result.status is Status.FAIL
    assert result.mistake is not None and result.mistake.id == mistake, result.message
    spec = kv_exercise.config.mutants[mistake]
    assert result.mistake.mistake == spec.mistake
    # Said once: by the result's mistake, not again by its summary.
    assert spec.mistake not in (result.message or "") and "likely mistake" not in (result.message or "")
    assert result.mistake.hint == kv_exercise.hint_text(spec.hint)
    explained = [t for t in result.failing() if t.mistake_id == mistake]
    assert [t.id for t in explained] == result.mistake.checks
    # Named once, at the top: the checks' own messages say what differs, not the mistake again.
    assert all("known mistake" not in (t.message or "") for t in result.tests)
    # The lead mistake's hint is said once, for the run: not again under each check it explains.
    assert [t.hint for t in result.tests if t.hint is not None] == []


def test_an_unknown_mistake_gets_no_guessed_hint(kv_exercise: Exercise) -> None:
    # Adds a constant to the output: no mutant does that.
    reference = kv_exercise.reference_path.read_text()
    source = reference.replace("return weights @ values,", "return weights @ values + 0.5,")
    assert source != reference
    result = grade(kv_exercise, source)
    assert result.status is Status.FAIL and result.mistake is None
    assert result.message == f"{len(result.failing())} of 12 checks did not pass."
    assert all(t.hint is None and t.mistake_id is None for t in result.failing())


def test_a_pass_costs_no_replay(kv_exercise: Exercise, monkeypatch: pytest.MonkeyPatch) -> None:
    replays: list[object] = []
    original = grading.matching

    def counting(*args: object) -> list[str]:
        replays.append(args)
        return original(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(grading, "matching", counting)
    assert grade(kv_exercise, kv_exercise.reference_path.read_text()).status is Status.PASS
    assert replays == []


@pytest.mark.parametrize(
    ("solution", "mutant", "alike"),
    [
        (np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-12]), True),
        (np.array([1.0, 2.0]), np.array([1.0, 2.001]), False),
        (np.array([1.0, 2.0], np.float16), np.array([1.0, 2.004], np.float16), True),  # within float16's precision
        (np.array([1.0, 2.0], np.float16), np.array([1.0, 2.0]), False),  # another dtype
        (np.array([1.0, 2.0]), np.array([[1.0, 2.0]]), False),  # another shape
        (np.array([3.4e38, 1.0], np.float32), np.array([np.inf, 1.0], np.float32), False),  # finite is not inf
        (np.array([np.inf, -np.inf]), np.array([np.inf, -np.inf]), True),
        (np.array([np.nan, 1.0]), np.array([np.nan, 1.0]), True),
        ((np.zeros(2), {"k": np.ones(1)}), (np.zeros(2), {"k": np.ones(1)}), True),
        ((np.zeros(2), {"k": np.ones(1)}), [np.zeros(2), {"k": np.ones(1)}], True),  # a tuple or a list
        ({"k": 1}, {"v": 1}, False),
        (2**40, 2**40, True),
        (2**40, float(2**40), False),  # an int is not a float, however equal
        (np.int64(3), 3, True),
        (True, 1, False),
    ],
)
def test_answers_are_alike_when_structure_kinds_dtypes_and_values_agree(
    solution: object, mutant: object, alike: bool
) -> None:
    assert same_answer(solution, mutant) is alike
