"""Values shown to students: compact, and at a cost bounded by the text, whatever the value."""

from __future__ import annotations

import time

import numpy as np
import pytest

from grader.results.display import VALUE_CHARS, describe_kind, show_keys, show_value


def test_small_values_read_as_python_writes_them() -> None:
    assert show_value([1, 2.5, None, True, "x"]) == "[1, 2.5, None, True, 'x']"
    assert show_value((1,)) == "(1,)"
    assert show_value({"k": (1, 2)}) == "{'k': (1, 2)}"
    assert show_value({256: b"<|eot|>", 0: b"\x00"}) == "{256: b'<|eot|>', 0: b'\\x00'}"
    assert show_value(np.array([0.123456, 2.0])) == "array([0.123456, 2.      ])"


def test_small_floats_are_never_shown_as_zero() -> None:
    # A gradient of 1e-6 beside ones of order 1: rounded to a few decimals, it would read as 0.
    assert show_value(np.array([1e-6, 1.5])) == "array([1.0e-06, 1.5e+00])"
    assert show_value(np.float64(1.6e-4)) == "np.float64(0.00016)"


def test_a_long_list_is_cut_with_the_count_of_what_was_left_out() -> None:
    text = show_value(list(range(10_000)))
    assert len(text) <= VALUE_CHARS
    assert text.startswith("[0, 1, 2, ") and text.endswith(" more]")
    shown = text.count(",")
    assert f"… {10_000 - shown:,} more" in text


def test_many_references_to_one_array_render_in_bounded_time() -> None:
    # repr() of this takes tens of seconds: every reference is formatted again.
    value = [np.arange(3.0)] * 50_000
    began = time.process_time()
    text = show_value(value)
    assert time.process_time() - began < 0.5
    assert len(text) <= VALUE_CHARS and "more]" in text


def test_a_dict_with_a_million_keys_renders_a_few() -> None:
    value = {str(i): i for i in range(1_000_000)}
    assert show_value(value).endswith("more}")
    first_twelve = ", ".join(f"'{i}'" for i in range(12))
    assert show_keys(value, len(value)) == f"[{first_twelve}, … 999,988 more]"
    assert show_keys({"v": 1, "k": 2}, 2) == "['k', 'v']"
    assert show_keys({"v": 1, 10: 2, 2: 3}, 3) == "[2, 10, 'v']"  # keys of both kinds: numbers first


@pytest.mark.parametrize(
    "value",
    [
        np.zeros((7,) * 8, dtype=bool),  # numpy would summarise it as 6**8 values
        np.zeros((2, 10**6)),
        "x" * 10**7,
        b"\xff" * 10**7,
        10**3999,
        [[[[list(range(1000))]]]] * 100,
    ],
    ids=["8-d array", "wide array", "long string", "long bytes", "huge integer", "nested lists"],
)
def test_expensive_values_stay_short(value: object) -> None:
    text = show_value(value)
    assert len(text) <= VALUE_CHARS


def test_a_huge_integer_is_described_not_printed() -> None:
    assert show_value(10**3000) == "<an integer of about 3,000 digits>"
    assert describe_kind(10**3000) == "an int (<an integer of about 3,000 digits>)"


def test_describe_names_kinds_and_lengths() -> None:
    assert describe_kind(np.zeros((2, 3))) == "a numpy array of shape (2, 3) and dtype float64"
    assert describe_kind({"a": 1}) == "a dict of length 1"
    assert describe_kind(list(range(2000))) == "a list of length 2,000"
    assert describe_kind(None) == "None"
    assert describe_kind(b"ab") == "a bytes object of length 2"
    assert describe_kind(2.5) == "a float (2.5)"
    assert describe_kind(2.5, with_value=False) == "a float"
