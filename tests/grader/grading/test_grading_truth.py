"""What a failed run says is true: the call beside its own expected value, and nothing of a hidden check's data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from grader.exercise import Exercise, load_exercise
from grader.grading import runs
from grader.grading.engine import grade
from grader.results.records import Reason, Status

FORGETS_THE_TWO = """
import numpy as np


def attend_step(x_t, cache, p):
    raise NotImplementedError


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
"""


def test_a_public_check_shows_the_call_its_expected_value_is_for(kv_exercise: Exercise) -> None:
    # The check makes all its calls first and compares after: the failing value is the first call's.
    result = grade(kv_exercise, FORGETS_THE_TWO)
    examples = next(t for t in result.tests if t.id == "cache_bytes_examples")
    assert examples.status is Status.FAIL and examples.details is not None
    args = [int(a) for a in examples.details["call"].removeprefix("kv_cache_bytes(").rstrip(")").split(", ")]
    layers, heads, head_dim, tokens, size = args
    assert int(examples.details["expected"]) == 2 * layers * heads * head_dim * tokens * size
    assert int(examples.details["got"]) == layers * heads * head_dim * tokens * size
    assert examples.symptom == "factor" and "÷ 2" in (examples.message or "")


def test_a_chain_shows_the_step_that_went_wrong_with_the_cache_it_was_given(kv_exercise: Exercise) -> None:
    # Right for the first token only (no scaling matters only once there are two scores).
    source = kv_exercise.reference_path.read_text().replace("/ np.sqrt(q.shape[0])", "")
    worked = grade(kv_exercise, source).tests[0]
    assert worked.id == "worked_example" and worked.details is not None
    call = worked.details["call"]
    assert call.startswith("attend_step(array([0., 1.]), {'k': array([[1., 0.]])")  # token 2, one row cached
    assert worked.details["expected"] == "array([0.330238, 1.339523])"  # token 2's expected output
    assert "token 2 of 3" in (worked.message or "")


def _hidden_exercise(make_exercise: Callable[..., Path], body: str) -> Exercise:
    checks = (
        "import numpy as np\n"
        "from grader.checks import check, expect_array, expect_float\n\n\n"
        "@check('A hidden check')\n"
        "def hidden(student):\n" + body
    )
    return load_exercise(make_exercise(files={"checks.py": checks}))


def test_a_value_returned_by_a_hidden_check_is_never_read_back(make_exercise: Callable[..., Path]) -> None:
    exercise = _hidden_exercise(
        make_exercise, "    expect_array(student.add(np.array([-0.8108145832]), 1), [0.1], what='out')\n"
    )
    # The solution returns its hidden input, as a float where an array is expected, then as the array itself.
    as_float = grade(exercise, "def add(a, b):\n    return float(a[0])\n").tests[0]
    assert "0.81" not in as_float.model_dump_json() and as_float.message == (
        "out should be a numpy array of shape (1,), got a float"
    )
    as_array = grade(exercise, "def add(a, b):\n    return a\n").tests[0]
    assert "0.81" not in as_array.model_dump_json() and "0.1" not in (as_array.message or "")


def test_a_hidden_checks_exception_says_its_kind_and_line_only(make_exercise: Callable[..., Path]) -> None:
    exercise = _hidden_exercise(make_exercise, "    expect_float(student.add(0.7734, 2), 2.7734, what='the sum')\n")
    raised = grade(exercise, "def add(a, b):\n    raise ValueError(f'leak {a}')\n").tests[0]
    assert raised.reason is Reason.RAISED
    assert (
        raised.message
        == "add() raised ValueError on line 2 of solution.py (its message is not shown: this check is hidden)."
    )
    own_class = grade(exercise, "class A7734(Exception):\n    pass\n\ndef add(a, b):\n    raise A7734()\n").tests[0]
    assert "7734" not in (own_class.message or "") and "a class of its own" in (own_class.message or "")
    exited = grade(exercise, "import sys\ndef add(a, b):\n    sys.exit(str(a))\n").tests[0]
    assert "0.7734" not in (exited.message or "")


def test_a_hidden_label_that_shows_the_inputs_is_withheld_and_kept_for_instructors(
    make_exercise: Callable[..., Path],
) -> None:
    exercise = _hidden_exercise(
        make_exercise, "    expect_float(student.add(0.7734, 2), 2.7734, what='add(0.7734, 2)')\n"
    )
    test = grade(exercise, "def add(a, b):\n    return a * b\n").tests[0]
    assert "0.7734" not in (test.message or "") and "this check is hidden" in (test.message or "")
    assert test.withheld_message is not None and "add(0.7734, 2)" in test.withheld_message
    assert test.for_student().withheld_message is None


def test_a_diagnosis_past_its_allowance_names_nothing_and_never_fails_the_run(
    kv_exercise: Exercise, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = kv_exercise.reference_path.read_text().replace("/ np.sqrt(q.shape[0])", "")
    assert grade(kv_exercise, source).mistake is not None  # named, with the allowance it has
    monkeypatch.setattr(runs, "DIAGNOSIS_SECONDS", 0.0)
    result = grade(kv_exercise, source)
    assert result.status is Status.FAIL and result.mistake is None
    assert all(t.reason is Reason.WRONG_ANSWER for t in result.failing())  # no internal error: the verdict stands
