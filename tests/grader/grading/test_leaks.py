"""Finding a hidden check's values in its message."""

from __future__ import annotations

import numpy as np

from grader.grading.leaks import leaks
from grader.grading.proxy import Call


def _call(*args: object, value: object = None) -> Call:
    return Call("f", tuple(args), batch=1, value=value)


def test_a_call_written_out_with_its_arguments_is_a_leak() -> None:
    calls = [_call(1, 1, 1, 1, 1, value=2)]
    assert leaks("kv_cache_bytes(1, 1, 1, 1, 1) is not the expected integer", ["kv_cache_bytes"], calls)
    assert not leaks("kv_cache_bytes() raised ValueError on line 3", ["kv_cache_bytes"], calls)


def test_an_input_or_expected_value_as_written_or_rounded_is_a_leak() -> None:
    x = np.array([-0.8108145832375699, 0.25, 3.0])
    calls = [_call(x, value=x * 2)]
    assert leaks("got a float (-0.8108145832375699)", ["f"], calls)
    assert leaks("out is -0.811 where it should not be", ["f"], calls)  # rounded to three digits
    assert leaks("the loss: expected 1.4175569, got 0.35", ["f"], calls, 1.4175569, 0.35)
    assert leaks("temperature 4096 is too much", ["f"], [_call(4096)])  # an integer argument beyond every size


def test_sizes_counts_positions_and_single_digits_are_not_leaks() -> None:
    x = np.zeros((24, 16))
    calls = [_call(x, 7, value=np.ones(16)) for _ in range(300)]
    message = "out (D=24, d=16, token 16 of 300) differs from the expected values: 12 of 16 values differ"
    assert leaks(message, ["f"], calls) == []
    assert leaks("case 3 of 8: 7 is not the expected integer", ["f"], [_call(7)]) == []  # single digits say little


def test_a_number_that_is_none_of_the_values_is_not_a_leak() -> None:
    calls = [_call(np.array([0.5, 1.5]), value=np.array([1.0, 3.0]))]
    assert leaks("the answer is 2.7 times too large", ["f"], calls) == []
