"""Symptoms of where values went: a transpose, a shift, a reversal, a permutation, a rotation, a normalisation axis."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

import numpy as np

from grader.grading.symptoms.case import AMBIGUOUS, RTOL, Case
from grader.grading.symptoms.words import Symptom, along, line, say, unit

#: Rounds of the alternating fit of a wrong-axis normalisation when some values are 0 (a causal mask).
_FIT_ROUNDS = 30


def _one(found: list[Symptom]) -> Symptom | None:
    """The one reading that fits; when several do, the data cannot tell them apart."""
    if len(found) == 1:
        return found[0]
    return AMBIGUOUS if found else None


def layout(case: Case) -> Symptom | None:
    """The expected values moved as a whole: axes exchanged, shifted by one, or reversed."""
    return _one([*_swaps(case), *_shifts(case), *_reversals(case)])


def _at(case: Case, part: tuple[slice, ...], mask: np.ndarray) -> np.ndarray:
    """``mask`` over a part of the values, as a mask over all of them."""
    whole = np.zeros(case.e.shape, dtype=bool)
    whole[part] = mask
    return whole


def _swaps(case: Case) -> Iterator[Symptom]:
    shape = case.e.shape
    for i, j in combinations(range(case.e.ndim), 2):
        if shape[i] == shape[j] >= 2 and case.fits(np.swapaxes(case.e, i, j)):
            yield say("transpose", axes="rows and columns" if case.e.ndim == 2 else f"axes {i} and {j}")


def _part(ndim: int, axis: int, part: slice) -> tuple[slice, ...]:
    return tuple(part if k == axis else slice(None) for k in range(ndim))


def _shifts(case: Case) -> Iterator[Symptom]:
    """Each position holding its neighbour's value: everywhere but the one position with no neighbour."""
    for axis, length in enumerate(case.e.shape):
        if length < 3:
            continue
        head, tail = _part(case.e.ndim, axis, slice(None, -1)), _part(case.e.ndim, axis, slice(1, None))
        for mine, theirs, which in ((head, tail, "next"), (tail, head, "previous")):
            got = case.g[mine]
            if not case.fits(case.e[theirs], got):
                continue
            # Evidence is a value that differs from its own expected one and is its neighbour's.
            moved = case.misfits(case.e[mine], got)
            if moved.sum() >= 2 and case.telling(_at(case, mine, moved)):
                yield say("shift", unit=unit(case.e.ndim, axis)[0], which=which)


def _reversals(case: Case) -> Iterator[Symptom]:
    for axis, length in enumerate(case.e.shape):
        if length >= 3 and case.fits(np.flip(case.e, axis)):
            yield say("reversed", along=along(case.e.ndim, axis))


def normalisation(case: Case) -> Symptom | None:
    """A sum to 1 along the wrong axis; a factor, or an offset, of each line's own along an axis."""
    if not case.real or case.e.ndim < 2:
        return None
    found = []
    ones = [a for a, n in enumerate(case.e.shape) if n >= 2 and _sums_to_one(case.e, a)]
    if (case.e >= 0).all() and (case.g >= 0).all():
        theirs = [b for b, n in enumerate(case.g.shape) if n >= 2 and _sums_to_one(case.g, b)]
        for a in ones:
            for b in theirs:
                if b not in ones and a not in theirs and _separable(case, a, b):
                    plainly = f" (its {line(2, b)[1]} sum to 1 where its {line(2, a)[1]} should)"
                    found.append(say("wrong-axis-normalisation", got_axis=b, axis=a,
                                     plainly=plainly if case.e.ndim == 2 else ""))  # fmt: skip
    for a in range(case.e.ndim):
        # One line along the axis is the whole array: a factor or offset of its own is the array's.
        if case.e.shape[a] >= 2 and case.e.size // case.e.shape[a] >= 2:
            found += _per_line(case, a, normalised=a in ones)
    return _one(found)


def _per_line(case: Case, axis: int, *, normalised: bool) -> list[Symptom]:
    """A factor, or an offset, of each line's own along ``axis``, where the data can show one.

    A line whose expected values are all equal takes any factor or offset, and so does one with a
    single non-zero value any factor; lines all multiples of one line (a rank-1 matrix) take any
    factors whose product has that line's shape, and lines equal up to a constant any offsets.
    """
    want, have = _lines(case.e, axis), _lines(case.g, axis)
    square = np.sum(want * want, axis=1, keepdims=True)
    factor = np.sum(want * have, axis=1, keepdims=True) / np.where(square == 0, 1, square)
    by_factor = case.fits(factor * want, have)
    by_offset = case.fits(want + np.mean(have - want, axis=1, keepdims=True), have)
    changed = case.misfits(want, have).any(axis=1)
    if not (by_factor or by_offset) or not (want.max(axis=1) > want.min(axis=1))[changed].all():
        return []
    one, many = line(case.e.ndim, axis)
    found = []
    if by_factor and (np.count_nonzero(want, axis=1)[changed] >= 2).all():
        singular = np.linalg.svd(want, compute_uv=False)
        if singular[1] > 1e-9 * singular[0]:
            found.append(say("unnormalised" if normalised else "factor-per-slice", unit=one, units=many, axis=axis))
    centred = want - want.mean(axis=1, keepdims=True)
    if by_offset and not case.fits(centred[:1], centred):
        kind = "unnormalised-log" if _log_normalised(case.e, axis) else "offset-per-slice"
        found.append(say(kind, unit=one, units=many, axis=axis))
    return found


def _lines(values: np.ndarray, axis: int) -> np.ndarray:
    """The lines along ``axis`` as the rows of a matrix."""
    return np.moveaxis(values, axis, -1).reshape(-1, values.shape[axis])


def _sums_to_one(values: np.ndarray, axis: int) -> bool:
    return bool((np.abs(values.sum(axis=axis) - 1) <= RTOL).all())


def _log_normalised(values: np.ndarray, axis: int) -> bool:
    top = values.max(axis=axis, keepdims=True)
    total = np.log(np.exp(values - top).sum(axis=axis, keepdims=True)) + top
    return bool((np.abs(total) <= RTOL).all())


def _separable(case: Case, a: int, b: int) -> bool:
    """Whether got / expected is a factor constant along ``a`` times one constant along ``b``.

    That is what normalising along ``b`` instead of ``a`` does to the same unnormalised values,
    whatever they were; zeros (a mask) must be at the same places in both.
    """
    support = case.e > 0
    if ((case.g > 0) != support).any():
        return False
    logs = np.where(support, np.log(np.where(support, case.g, 1)) - np.log(np.where(support, case.e, 1)), 0.0)
    weight = support.astype(np.float64)
    along_a, along_b = np.zeros_like(logs), np.zeros_like(logs)
    for _ in range(2 if support.all() else _FIT_ROUNDS):
        along_a = _mean(logs - along_b, weight, a)
        along_b = _mean(logs - along_a, weight, b)
        if case.fits(np.where(support, case.e * np.exp(along_a + along_b), 0.0)):
            return True
    return False


def _mean(values: np.ndarray, weight: np.ndarray, axis: int) -> np.ndarray:
    total = np.sum(weight, axis=axis, keepdims=True)
    return np.sum(values * weight, axis=axis, keepdims=True) / np.maximum(total, 1)


def permutation(case: Case) -> Symptom | None:
    """The expected values, all of them, at other positions: within each line along the last axis, or anywhere."""
    if not case.real:
        return None
    if case.misfits(case.e).sum() < 2:
        return None
    last = case.e.ndim - 1
    if case.e.ndim >= 2 and case.fits(np.sort(case.e, axis=last), np.sort(case.g, axis=last)):
        return say("permutation", within=f" within each {line(case.e.ndim, last)[0]}")
    if case.fits(np.sort(case.e, axis=None), np.sort(case.g, axis=None)):
        return say("permutation", within="")
    return None


def rotation(case: Case) -> Symptom | None:
    """Pairs of values (adjacent, or i and i + half) with their expected lengths in other directions."""
    if not case.real or case.e.ndim == 0 or case.e.shape[-1] % 2 or case.e.size < 4:
        return None
    width = case.e.shape[-1]
    pairings = {"values 0 and 1, 2 and 3, … of the last axis": (slice(0, None, 2), slice(1, None, 2))}
    if width > 2:
        pairings["value i and value i + half of the last axis"] = (slice(0, width // 2), slice(width // 2, None))
    found = []
    for text, (first, second) in pairings.items():
        e0, e1, g0, g1 = case.e[..., first], case.e[..., second], case.g[..., first], case.g[..., second]
        if case.fits(np.sqrt(e0 * e0 + e1 * e1), np.sqrt(g0 * g0 + g1 * g1)):
            turned = case.misfits(e0, g0) | case.misfits(e1, g1)
            if turned.sum() >= 2:
                found.append(say("rotation", pairs=text))
    return _one(found)
