"""Assertion helpers: shape and type before closeness, and messages that say what differs."""

from __future__ import annotations

import numpy as np
import pytest

from grader.checks import CHECK_HINT, CheckFailed, expect_array, expect_dict, expect_integer, expect_sequence, fail


def message_of(call, *args, **kwargs) -> str:  # type: ignore[no-untyped-def]
    with pytest.raises(CheckFailed) as failed:
        call(*args, **kwargs)
    return failed.value.message


def test_a_close_array_passes() -> None:
    expect_array(np.array([1.0, 2.0 + 1e-12]), [1.0, 2.0], what="out")


@pytest.mark.parametrize("got", [np.array([1.0]), np.float64(1.0), 1.0, np.array(1.0)])
def test_values_that_would_broadcast_are_refused_by_shape(got: object) -> None:
    message = message_of(expect_array, got, [1.0, 1.0], what="out")
    assert "shape (2,)" in message


def test_a_shape_mismatch_gives_both_shapes() -> None:
    assert message_of(expect_array, np.zeros((1, 2)), [0.0, 0.0], what="out") == (
        "out should have shape (2,), got shape (1, 2)"
    )


def test_a_value_mismatch_gives_index_errors_and_tolerance() -> None:
    message = message_of(expect_array, np.array([1.0, 2.5, 3.0]), [1.0, 2.0, 3.0], what="out", rtol=1e-6, atol=0)
    assert message == (
        "out differs from the expected values: first at index (1,) (expected 2, got 2.5); 1 of 3 values differ, "
        "max absolute error 0.5, max relative error 0.25 (tolerance rtol=1e-06, atol=0)"
    )


def test_nan_where_a_number_was_expected_is_called_out() -> None:
    message = message_of(expect_array, np.array([np.nan, 1.0]), [0.5, 1.0], what="out")
    assert message.startswith("out holds nan at index (0,) where 0.5 was expected")


def test_non_numeric_arrays_and_lists_are_refused() -> None:
    assert "dtype <U1" in message_of(expect_array, np.array(["a", "b"]), [1.0, 2.0], what="out")
    assert "got a list of length 2" in message_of(expect_array, [1.0, 2.0], [1.0, 2.0], what="out")


def test_integers_must_be_exact_integers() -> None:
    expect_integer(5, 5, what="n")
    expect_integer(np.int64(5), 5, what="n")
    assert message_of(expect_integer, 5.0, 5, what="n") == "n should be an integer, got a float (5.0)"
    assert message_of(expect_integer, True, 1, what="n") == "n should be an integer, got a bool (True)"
    assert message_of(expect_integer, 4, 2**40, what="n") == "n: expected 1,099,511,627,776, got 4"


def test_sequences_and_dicts_are_checked_for_form() -> None:
    assert expect_sequence((1, 2), 2, what="r") == (1, 2)
    assert message_of(expect_sequence, None, 2, what="r") == "r should be a tuple of 2 values, got None"
    assert message_of(expect_sequence, [1, 2, 3], 2, what="r") == "r should hold 2 values, got 3"
    assert message_of(expect_dict, {"k": 1}, ["k", "v"], what="c") == "c should have the keys ['k', 'v'], got ['k']"


def test_a_hint_goes_with_a_wrong_form_but_never_with_wrong_values() -> None:
    with pytest.raises(CheckFailed) as failed:
        expect_array(np.zeros(3), [1.0, 1.0], what="out", hint="shape")
    assert failed.value.hint == "shape"  # certain: the shape is wrong
    with pytest.raises(CheckFailed) as failed:
        expect_array(np.zeros(2), [1.0, 1.0], what="out", hint="shape")
    assert failed.value.hint is None  # a guess: the grader names value mistakes itself
    with pytest.raises(CheckFailed) as failed:
        expect_integer(3, 4, what="n", hint="integers")
    assert failed.value.hint is None


def test_a_failure_without_a_hint_of_its_own_takes_the_checks() -> None:
    with pytest.raises(CheckFailed) as failed:
        expect_sequence(None, 2, what="r")
    assert failed.value.hint is CHECK_HINT
    with pytest.raises(CheckFailed) as failed:
        fail("no hint at all", hint=None)
    assert failed.value.hint is None
