"""``expect_ints``: an int, or lists of ints nested as expected, compared exactly.

Schedules, groups, logs and counts are answers where close is wrong: each int must be an int (not
a bool or a float) and each list a list (where a tuple is expected, a tuple or a list of its length).
A hidden check's message says where the first difference is, never the values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.grading.checking import values_shown
from grader.grading.expectations import describe, expect_integer
from grader.grading.failures import CHECK_HINT, Hint, fail
from grader.grading.wrong_values import fail_values, symptom_of


def expect_ints(got: Any, expected: int | Sequence[Any], *, what: str, hint: Hint = CHECK_HINT) -> None:
    """``got`` must be an int, or a list (nested lists) of ints, exactly equal to ``expected``.

    An int is a Python or numpy integer, never a bool or a float; a list is a Python ``list``,
    never a tuple or an array (an answer's form, which ``hint`` goes with); where ``expected`` holds a
    tuple, a tuple or a list is accepted. A hidden check's message says where the first difference
    is (an index, or which list has another length), not the values.
    """
    if isinstance(expected, int):
        expect_integer(got, expected, what=what, hint=hint)
        return
    form = _int_list_form(got, expected, "")
    if form is not None:
        fail(f"{what} should be {form}, got {describe(got)}", hint=hint, expected=expected, got=got)
    values, wanted = _plain_ints(got), _plain_ints(expected)
    if values == wanted:
        return
    where, length = _first_difference(values, wanted, "")
    found = None
    flat = all(isinstance(x, int) for x in expected) and len(values) == len(expected)
    if flat:
        found = symptom_of(np.array(expected, dtype=float), np.array(values, dtype=float), got)
    if values_shown():
        message = f"{what}: expected {expected!r}, got {values}"
    elif length is not None:
        want_items, got_items = length
        items = f"{got_items:,} item{'' if got_items == 1 else 's'}"
        at = f" at {where}" if where else ""
        message = f"{what} has {items}{at} where {want_items:,} {'was' if want_items == 1 else 'were'} expected"
    else:
        wrong = sum(a != b for a, b in zip(values, expected, strict=True)) if flat else 0
        count = f"{wrong:,} of {len(values):,} items differ, " if flat else ""
        message = f"{what} differs from the expected ints: {count}first at index {where}"
    fail_values(message, found, expected, got)


def _int_list_form(got: Any, expected: Sequence[Any], where: str) -> str | None:
    """What ``got`` should have been, if its form (lists of ints, nested as expected's are) is wrong."""
    nested = any(isinstance(x, (list, tuple)) for x in expected)
    kinds: tuple[type, ...] = (list,)
    if isinstance(expected, tuple):
        wanted, kinds = f"a tuple of {len(expected)} {'items' if nested else 'ints'} (or a list)", (list, tuple)
    else:
        wanted = "a list of lists of ints" if nested else "a list of ints"
    if type(got) not in kinds or (isinstance(expected, tuple) and len(got) != len(expected)):
        return wanted + (f" (at {where})" if where else "")
    for index, item in enumerate(got):
        inner = expected[index] if index < len(expected) else (expected[0] if expected else 0)
        if isinstance(inner, (list, tuple)):
            problem = _int_list_form(item, inner, f"{where}[{index}]")
            if problem is not None:
                return problem
        elif isinstance(item, bool) or not isinstance(item, (int, np.integer)):
            return f"{wanted}, with an int at {where}[{index}]"
    return None


def _plain_ints(got: Sequence[Any]) -> list[Any]:
    """Nested lists of Python ints (tuples made lists): the two sides compared."""
    return [_plain_ints(item) if isinstance(item, (list, tuple)) else int(item) for item in got]


def _first_difference(got: list[Any], want: list[Any], where: str) -> tuple[str, tuple[int, int] | None]:
    """Where two unequal nested lists first differ: an index path, and (expected, got) lengths if there."""
    for index, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            if isinstance(a, list) and isinstance(b, list):
                return _first_difference(a, b, f"{where}[{index}]")
            return f"{where}[{index}]", None
    return where, (len(want), len(got))
