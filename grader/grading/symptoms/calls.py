"""What a check's calls bring to a diagnosis: their sizes, which had an empty input, and which were right."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from grader.grading.symptoms.digits import is_int, ordinal
from grader.grading.symptoms.words import Symptom, say

#: Arguments are walked this deep (a dict of arrays, a list of tuples) and this wide, bounding the cost.
_DEPTH, _WIDTH = 3, 32


def sizes_of(args: Sequence[Any], names: Sequence[str] = ()) -> dict[str, float]:
    """The sizes of a call, for :func:`~.diagnosis.diagnose`: numeric arguments by name, array dimensions by value.

    ``names`` are the function's parameters, in order. A number without a name is left out, since
    it could be named only by its value, which a hidden check must not show.
    """
    found: dict[str, float] = {}
    for position, arg in enumerate(args):
        if is_int(arg) or isinstance(arg, (float, np.floating)):
            if position < len(names) and math.isfinite(arg) and 0 < abs(arg) < 2.0**62:
                found.setdefault(names[position], float(arg))
            continue
        for dim in sorted(_dims(arg, _DEPTH)):
            found.setdefault(str(dim), float(dim))
    return found


def _items(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value.values())[:_WIDTH]
    return list(value[:_WIDTH]) if isinstance(value, (list, tuple)) else []


def _dims(value: Any, depth: int) -> set[int]:
    if isinstance(value, np.ndarray):
        return {int(d) for d in value.shape}
    return set().union(*(_dims(item, depth - 1) for item in _items(value))) if depth else set()


def is_empty_case(args: Sequence[Any]) -> bool:
    """Whether an argument is empty (an array without values, an empty list, tuple, dict or str), nested or not."""
    return any(_empty(arg, _DEPTH) for arg in args)


def _empty(value: Any, depth: int) -> bool:
    if isinstance(value, np.ndarray):
        return value.size == 0
    if isinstance(value, (str, bytes, list, tuple, dict)) and len(value) == 0:
        return True
    return depth > 0 and any(_empty(item, depth - 1) for item in _items(value))


def across_calls(rights: Sequence[bool], *, empty: Sequence[bool] = ()) -> Symptom | None:
    """The pattern of a check's right and wrong calls, in order, when it says something: right for a sub-case only.

    ``empty``: for each call, whether an input was empty (:func:`is_empty_case`). Wrong exactly on
    the empty ones needs two calls; the other patterns three (right on the first only, wrong on the
    first only, wrong on the last only, right up to a call and wrong from it on).
    """
    rights = [bool(right) for right in rights]
    count = len(rights)
    if all(rights) or not any(rights):
        return None
    if len(empty) == count >= 2 and [not right for right in rights] == [bool(e) for e in empty]:
        return say("wrong-when-empty")
    if count < 3:
        return None
    if rights[0] and not any(rights[1:]):
        return say("first-only")
    if not rights[0] and all(rights[1:]):
        return say("wrong-first-only")
    if all(rights[:-1]):
        return say("wrong-last-only")
    first_wrong = rights.index(False)
    if first_wrong >= 2 and not any(rights[first_wrong:]):
        return say("right-until", count=first_wrong, next=ordinal(first_wrong + 1))
    return None
