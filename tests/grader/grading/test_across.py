"""What a failing check's calls show together: an in-place update, a relationship across calls, a pattern."""

from __future__ import annotations

from pathlib import Path

from grader.grading.mistakes.across import symptom_across
from grader.grading.mistakes.fingerprints import KnownMistake
from grader.grading.proxy import Call

APPEND = """
def append(cache, row):
    return {"rows": cache["rows"] + [row]}


def ratio(m, n):
    return m / n


def step(total, x):
    return [total + x]
"""


def _reference(tmp_path: Path) -> KnownMistake:
    return KnownMistake.from_source("reference", "", "", APPEND, str(tmp_path / "reference.py"))


def test_answers_of_a_function_that_changes_its_argument_are_said_to_be_in_place(tmp_path: Path) -> None:
    reference = _reference(tmp_path)
    shared = {"rows": [1]}
    # One cache passed to two calls of one batch; the solution appended to it and returned it, so both
    # answers (sent once the batch has run) hold both rows.
    both = {"rows": [1, 2, 3]}
    calls = [Call("append", (shared, 2), batch=1, value=both), Call("append", (shared, 3), batch=1, value=both)]
    found = symptom_across(reference, calls)
    assert found is not None and found.kind == "in-place"


def test_without_a_shared_argument_nothing_is_said_in_place(tmp_path: Path) -> None:
    reference = _reference(tmp_path)
    calls = [
        Call("append", ({"rows": [1]}, 2), batch=1, value={"rows": [1, 2, 9]}),
        Call("append", ({"rows": [1]}, 3), batch=1, value={"rows": [1, 3, 9]}),
    ]
    assert symptom_across(reference, calls) is None


def test_one_relationship_across_every_wrong_call(tmp_path: Path) -> None:
    reference = _reference(tmp_path)
    cases = [(6, 5), (7, 2), (100, 7), (9, 4)]
    calls = [Call("ratio", (m, n), batch=1, value=float(m // n)) for m, n in cases]
    found = symptom_across(reference, calls)
    assert found is not None and found.kind == "truncation"
    # One wrong call is not enough evidence.
    assert symptom_across(reference, [*calls[:1], Call("ratio", (1, 2), batch=1, value=0.5)]) is None


def test_right_on_the_first_step_of_a_sequence_only(tmp_path: Path) -> None:
    reference = _reference(tmp_path)
    # A running total fed from each answer to the next call, right only at the first step.
    chain = [Call("step", (0, 1), batch=1, value=[1])]
    for x, wrong in ((2, 17), (3, 5), (4, 40)):
        chain.append(Call("step", (chain[-1].value[0], x), batch=1, value=[wrong], fed=(0, 0)))
    found = symptom_across(reference, chain)
    assert found is not None and found.kind == "first-only"
    # The same pattern over independent cases says nothing: their order is the check's, not the solution's.
    independent = [
        Call("step", (0, x), batch=1, value=[x if x == 1 else wrong]) for x, wrong in ((1, 0), (2, 17), (3, 5), (4, 40))
    ]
    assert symptom_across(reference, independent) is None


def test_integers_too_large_for_a_float_are_not_stacked(tmp_path: Path) -> None:
    reference = _reference(tmp_path)
    calls = [Call("ratio", (10**400, n), batch=1, value=10**400) for n in (3, 7, 9)]
    assert symptom_across(reference, calls) is None  # no relationship claimed, and no error
