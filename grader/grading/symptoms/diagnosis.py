"""The diagnosis of one wrong answer: its symptom tests, most specific first."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from grader.grading.symptoms import shapes, values
from grader.grading.symptoms.case import AMBIGUOUS, Case
from grader.grading.symptoms.digits import is_int
from grader.grading.symptoms.words import Symptom, say

#: Each test group returns a symptom, AMBIGUOUS (stop: say nothing), or None (try the next). The
#: first two judge the size and sign of each difference; the others find a relationship, which
#: only values that can bear one out (:meth:`Case.telling`) may show.
_SIZES: tuple[Callable[[Case], Symptom | None], ...] = (values.closeness, values.integers)
_RELATIONSHIPS: tuple[Callable[[Case], Symptom | None], ...] = (
    values.elementwise, shapes.layout, shapes.normalisation, values.rounding, shapes.permutation, shapes.rotation,
)  # fmt: skip
#: Above this many values only the value-by-value tests run (a few passes over the values each):
#: where values went, and the sort of the permutation test, would cost a grader tenths of a second.
LARGE = 1 << 16


def diagnose(expected: Any, got: Any, *, sizes: Mapping[str, float] | Iterable[int] = ()) -> Symptom | None:
    """The most specific symptom that explains every value of ``got`` against ``expected``, or None.

    For answers whose kind, shape and dtype are right but whose values are not: arrays of one
    shape, or scalars (a Python int against an int is compared exactly, at any size). ``sizes``
    name the factors: a mapping from a numeric parameter's name to its value (the value is never
    shown), or plain dimensions (shown as they are); the dimensions of ``expected`` are added.
    :func:`grader.grading.symptoms.sizes_of` gathers them from a call's arguments.
    """
    named = _sizes(sizes, np.shape(expected))
    if is_int(expected) and is_int(got):
        return values.integer(int(expected), int(got), named)
    try:
        want, have = np.asarray(expected), np.asarray(got)
    except (TypeError, ValueError, OverflowError):
        return None
    if want.shape != have.shape or want.size == 0 or want.dtype.kind not in "iufc" or have.dtype.kind not in "iufc":
        return None
    as_type = np.complex128 if "c" in (want.dtype.kind, have.dtype.kind) else np.float64
    with np.errstate(all="ignore"):
        found = _diagnose(Case(want.astype(as_type), have.astype(as_type), have.dtype, named))
    return None if found is AMBIGUOUS else found


def _diagnose(case: Case) -> Symptom | None:
    finite = np.isfinite(case.e)
    broken = finite & ~np.isfinite(case.g)
    if broken.any():
        return say("overflow" if np.isinf(case.g[broken]).any() else "nan")
    if not finite.all():
        return None
    case.scale = float(np.abs(case.e).max())
    if case.scale == 0:
        return None  # every expected value is 0: no relationship to it says anything
    for group in _SIZES:
        found = group(case)
        if found is not None:
            return found
    if not case.telling():
        return None
    for group in _RELATIONSHIPS if case.e.size <= LARGE else _RELATIONSHIPS[:1]:
        found = group(case)
        if found is not None:
            return found
    return None


def _sizes(sizes: Mapping[str, float] | Iterable[int], shape: tuple[int, ...]) -> list[tuple[str, float]]:
    """(label, value) of the sizes a factor can be: named numbers as given, dimensions (2 or more) by their value."""
    named = [(label, float(value)) for label, value in sizes.items()] if isinstance(sizes, Mapping) else []
    dims = [] if isinstance(sizes, Mapping) else [int(value) for value in sizes]
    pairs = [p for p in named if math.isfinite(p[1]) and p[1] > 0 and p[1] != 1]
    pairs += [(str(dim), float(dim)) for dim in [*dims, *shape] if dim >= 2]
    return list(dict.fromkeys(pairs))
