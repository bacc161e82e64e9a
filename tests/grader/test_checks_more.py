"""The check API's newer helpers: dtypes and exact arrays, floats, tuples of expectations, and the seeded generator."""

from __future__ import annotations

import types
import warnings
from functools import partial

import numpy as np
import pytest

from grader.checks import (
    CHECK_HINT,
    CheckFailed,
    check,
    check_rng,
    collect_checks,
    expect_array,
    expect_dict,
    expect_float,
    expect_ints,
    expect_tuple,
    scaled_tolerance,
)
from grader.grading.checking import checking
from grader.grading.proxy import CallLog


def failure(call, *args, **kwargs) -> CheckFailed:  # type: ignore[no-untyped-def]
    with pytest.raises(CheckFailed) as failed:
        call(*args, **kwargs)
    return failed.value


# --------------------------------------------------------------------------- expect_array(dtype=, exact=)


def test_a_required_dtype_must_be_exactly_that_one() -> None:
    expect_array(np.array([1, -2], dtype=np.int8), [1, -2], what="codes", dtype=np.int8)
    wrong = failure(expect_array, np.array([1, -2]), [1, -2], what="codes", dtype=np.int8, hint="int8")
    assert wrong.message == "codes should have dtype int8, got dtype int64"
    assert wrong.hint == "int8"  # the form is wrong: the helper's hint
    assert failure(expect_array, np.array([1.0], dtype=np.float32), [1.0], what="x", dtype="float64").message == (
        "x should have dtype float64, got dtype float32"
    )


def test_a_required_dtype_lets_bool_and_complex_arrays_through() -> None:
    expect_array(np.array([True, False]), [True, False], what="mask", dtype=bool, exact=True)
    expect_array(np.array([1 + 1e-12j, 2j]), [1, 2j], what="z", dtype=np.complex128)
    assert "dtype bool" in failure(expect_array, np.array([True]), [1.0], what="mask").message  # no dtype: real only


def test_exact_compares_with_array_equal() -> None:
    expect_array(np.array([2**62 + 1], dtype=np.int64), [2**62 + 1], what="n", exact=True)
    # Close is not equal: float64 cannot tell 2**62 + 1 from 2**62, exact comparison can.
    wrong = failure(expect_array, np.array([2**62], dtype=np.int64), [2**62 + 1], what="n", exact=True, hint="h")
    assert wrong.message == (
        "n differs from the expected values: first at index (0,) (expected np.int64(4611686018427387905), "
        "got np.int64(4611686018427387904)); 1 of 1 values differ (compared exactly)"
    )
    assert wrong.hint is None  # wrong values: no guessed hint
    expect_array(np.array([np.nan, 1.0]), [np.nan, 1.0], what="x", exact=True)
    assert "compared exactly" in failure(expect_array, np.array([1.0 + 1e-15]), [1.0], what="x", exact=True).message


def test_exact_with_a_dtype_checks_both() -> None:
    codes = np.array([127, -128, 0, 5], dtype=np.int8)
    expect_array(codes, [127, -128, 0, 5], what="codes", dtype=np.int8, exact=True)
    message = failure(expect_array, codes, [127, -128, 0, 6], what="codes", dtype=np.int8, exact=True).message
    assert message.startswith("codes differs from the expected values: first at index (3,) (expected np.int64(6)")


# --------------------------------------------------------------------------- expect_float


@pytest.mark.parametrize("got", [0.5, np.float64(0.5), np.float32(0.5), np.array(0.5), np.float16(0.5)])
def test_floats_of_every_kind_pass(got: object) -> None:
    expect_float(got, 0.5, what="p")


@pytest.mark.parametrize(
    ("got", "shown"),
    [(1, "an int (1)"), (True, "a bool (True)"), (np.int64(1), "a numpy int64 scalar"), ("1.0", "a str")],
)
def test_ints_bools_and_others_are_refused_with_the_hint(got: object, shown: str) -> None:
    refused = failure(expect_float, got, 1.0, what="p", hint="float")
    assert refused.message.startswith(f"p should be a float, got {shown}")
    assert refused.hint == "float"


def test_arrays_of_one_value_are_refused() -> None:
    assert failure(expect_float, np.array([0.5]), 0.5, what="p").message == (
        "p should be a float, got a numpy array of shape (1,) and dtype float64"
    )
    assert "got a numpy array of shape () and dtype int64" in failure(expect_float, np.array(1), 1.0, what="p").message


def test_a_wrong_float_says_by_how_much_and_gives_no_hint() -> None:
    wrong = failure(expect_float, 0.5, 0.693147, what="loss", hint="log")
    assert wrong.message == (
        "loss: expected 0.693147, got 0.5 (absolute error 0.193, relative error 0.279; "
        "tolerance rtol=1e-06, atol=1e-09)"
    )
    assert wrong.hint is None and wrong.expected == 0.693147 and wrong.got == 0.5
    expect_float(1.0 + 1e-3, 1.0, what="x", rtol=1e-2)


def test_nan_and_inf() -> None:
    expect_float(float("nan"), float("nan"), what="x")
    assert failure(expect_float, float("inf"), 2.0, what="x").message == (
        "x is inf where 2 was expected (inf or nan: an overflow, or 0/0?)"
    )
    assert "expected nan, got 1" in failure(expect_float, 1.0, float("nan"), what="x").message


# --------------------------------------------------------------------------- expect_tuple


def test_a_tuple_is_checked_for_form_then_item_by_item() -> None:
    result = (np.array([1.0, 2.0]), {"k": 1, "v": 2})
    expectations = [
        lambda out: expect_array(out, [1.0, 2.0], what="out"),
        partial(expect_dict, keys=["k", "v"], what="new_cache", hint="keys"),
    ]
    out, cache = expect_tuple(result, expectations, what="step", hint="shape")
    assert cache == {"k": 1, "v": 2} and out.shape == (2,)
    assert expect_tuple([1, 2], [None, None], what="pair") == (1, 2)

    short = failure(expect_tuple, (1,), expectations, what="step", hint="shape")
    assert short.message == "step should hold 2 values, got 1" and short.hint == "shape"
    kind = failure(expect_tuple, np.zeros(2), expectations, what="step", hint="shape")
    assert kind.message.startswith("step should be a tuple of 2 values, got a numpy array")
    second = failure(expect_tuple, (np.array([1.0, 2.0]), {"k": 1}), expectations, what="step", hint="shape")
    assert second.message == "new_cache should have the keys ['k', 'v'], got ['k']" and second.hint == "keys"
    first = failure(expect_tuple, (np.array([1.0, 3.0]), {"k": 1}), expectations, what="step")
    assert first.message.startswith("out differs from the expected values")  # items in order: the first one first


def test_an_items_expectation_keeps_the_checks_hint_by_default() -> None:
    failed = failure(expect_tuple, (1.5,), [lambda n: expect_float(n, 1.0, what="n")], what="t")
    assert failed.hint is None  # a wrong value
    kind = failure(expect_tuple, ("x",), [lambda n: expect_float(n, 1.0, what="n")], what="t")
    assert kind.hint is CHECK_HINT  # the wrong kind: left to the check's own hint


# --------------------------------------------------------------------------- the seeded generator


def module_with(**functions: object) -> types.ModuleType:
    module = types.ModuleType("checks_under_test")
    vars(module).update(functions)
    return module


def test_check_rng_depends_on_the_slug_and_the_check_only() -> None:
    draw = check_rng("softmax", "random_vectors").integers(1 << 60, size=4)
    assert (draw == check_rng("softmax", "random_vectors").integers(1 << 60, size=4)).all()
    assert not (draw == check_rng("softmax", "large_scores").integers(1 << 60, size=4)).all()
    assert not (draw == check_rng("other", "random_vectors").integers(1 << 60, size=4)).all()


def test_a_check_taking_rng_gets_a_fresh_seeded_generator_at_every_run() -> None:
    drawn: list[float] = []

    @check("Random")
    def random_inputs(student: object, rng: np.random.Generator) -> None:
        drawn.append(float(rng.random()))

    @check("Plain")
    def plain(student: object) -> None:
        drawn.append(-1.0)

    first, second = collect_checks(module_with(random_inputs=random_inputs, plain=plain), slug="softmax")
    assert first.takes_rng and not second.takes_rng
    first.function(None)  # type: ignore[arg-type]
    first.function(None)  # type: ignore[arg-type]
    second.function(None)  # type: ignore[arg-type]
    assert drawn == [check_rng("softmax", "random_inputs").random()] * 2 + [-1.0]


def test_expect_array_gives_no_relative_error_against_zeros_and_warns_of_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        message = str(failure(expect_array, np.array([0.0, 1.0]), np.zeros(2), what="out"))
    assert "max absolute error 1 (tolerance" in message


def test_expect_array_relative_error_to_a_subnormal_value_is_inf_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        message = str(failure(expect_array, np.array([1.0]), np.array([5e-324]), what="out"))
    assert "max relative error inf (tolerance" in message


def test_expect_array_relative_error_counts_only_nonzero_expected_values() -> None:
    message = str(failure(expect_array, np.array([5.0, 3.0]), np.array([0.0, 2.0]), what="out"))
    assert "max absolute error 5, max relative error 0.5 (tolerance" in message


def test_expect_float_against_zero_gives_the_absolute_error_only() -> None:
    message = str(failure(expect_float, 0.5, 0.0, what="loss"))
    assert "absolute error 0.5; tolerance" in message


# --------------------------------------------------------------------------- expect_ints, scaled_tolerance


def test_expect_ints_takes_numpy_integers_and_nested_lists() -> None:
    expect_ints([[5, 4], [np.int64(3), 2], []], [[5, 4], [3, 2], []], what="buckets")
    expect_ints(np.int32(7), 7, what="n")
    expect_ints([2**60 + 1], [2**60 + 1], what="big")


def test_expect_ints_refuses_tuples_arrays_bools_and_floats_as_the_form() -> None:
    wrong = failure(expect_ints, ([0, 1], [2, 3]), [[0, 1], [2, 3]], what="groups", hint="form")
    assert wrong.message.startswith("groups should be a list of lists of ints, got")
    assert wrong.hint == "form"
    inner = failure(expect_ints, [[0, 1], (2, 3)], [[0, 1], [2, 3]], what="groups")
    assert inner.message.startswith("groups should be a list of ints (at [1]), got")
    assert "with an int at [1]" in failure(expect_ints, [0, True], [0, 1], what="x").message
    assert "with an int at [0]" in failure(expect_ints, [1.0], [1], what="x").message
    assert failure(expect_ints, np.array([1]), [1], what="x").message.startswith("x should be a list of ints")


def test_expect_ints_shows_values_in_a_public_check_and_only_where_in_a_hidden_one() -> None:
    public = failure(expect_ints, [[5], [4, 3]], [[5, 4], [3]], what="buckets")
    assert public.message == "buckets: expected [[5, 4], [3]], got [[5], [4, 3]]"
    assert public.hint is None
    with checking(public=False, log=CallLog()):
        nested = failure(expect_ints, [[5], [4, 3]], [[5, 4], [3]], what="buckets")
        flat = failure(expect_ints, [1, 9, 3, 8], [1, 2, 3, 4], what="ends")
        length = failure(expect_ints, [[1, 2], [3]], [[1, 2], [3, 4]], what="steps")
    assert nested.message == "buckets has 1 item at [0] where 2 were expected"
    assert flat.message.startswith("ends differs from the expected ints: 2 of 4 items differ, first at index [1]")
    assert length.message == "steps has 1 item at [1] where 2 were expected"
    for failed in (nested, flat, length):
        assert "9" not in failed.message and "4" not in failed.message.replace("of 4 items", "")


def test_scaled_tolerance_floors_atol_at_the_largest_finite_magnitude() -> None:
    assert scaled_tolerance(np.array([0.5, -3e3, np.inf])) == {"rtol": 1e-9, "atol": pytest.approx(3e-6)}
    assert scaled_tolerance([0.1], rtol=1e-6) == {"rtol": 1e-6, "atol": 1e-6}
    assert scaled_tolerance(np.zeros(0)) == {"rtol": 1e-9, "atol": 1e-9}
    expect_array(np.array([1000.0 + 5e-7]), [1000.0], what="g", **scaled_tolerance([1000.0]))


def test_a_finite_value_where_an_infinity_was_expected_is_said_so() -> None:
    lse = failure(expect_array, np.array([0.5, 0.0]), [0.5, -np.inf], what="lse")
    assert lse.message == "lse holds 0.0 at index (1,) where -inf was expected"
    with checking(public=False, log=CallLog()):
        hidden = failure(expect_array, np.array([0.5, 0.0]), [0.5, -np.inf], what="lse")
    assert hidden.message == "lse holds another value at index (1,) where an infinity was expected"
    expect_array(np.array([0.5, -np.inf]), [0.5, -np.inf], what="lse")


def test_expect_ints_takes_a_tuple_or_a_list_where_a_tuple_is_expected() -> None:
    order = [(0, 0), (1, 0), (0, 1)]
    expect_ints([(0, 0), [1, 0], (np.int64(0), 1)], order, what="order")
    assert failure(expect_ints, [(0, 0, 0), (1, 0), (0, 1)], order, what="order").message.startswith(
        "order should be a tuple of 2 ints (or a list) (at [0]), got"
    )
    assert failure(expect_ints, ((0, 0), (1, 0), (0, 1)), order, what="order").message.startswith(
        "order should be a list of lists of ints, got"
    )
    wrong = failure(expect_ints, [(0, 0), (0, 1), (1, 0)], order, what="order")
    assert wrong.message == "order: expected [(0, 0), (1, 0), (0, 1)], got [[0, 0], [0, 1], [1, 0]]"
