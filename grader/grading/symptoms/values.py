"""Symptoms value by value: round-off, underflow, integers, a factor, a sign, an offset, whole numbers."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np

from grader.grading.symptoms import shapes
from grader.grading.symptoms.case import AMBIGUOUS, ROUND_BELOW, RTOL, Case, computed_in
from grader.grading.symptoms.digits import BANDS
from grader.grading.symptoms.words import Symptom, say
from grader.grading.tolerances import NAMING_RTOL

#: At most this many equal candidates are listed ("÷ n_layers or ÷ √n_tokens"); beyond, none is.
MOST_NAMES = 3


def closeness(case: Case) -> Symptom | None:
    """Underflow to 0, a narrower dtype's round-off, or values equal within tolerance (then nothing to name)."""
    # Round-off in a sum is relative to its terms, not to a result near 0 (n·eps·Σ|terms| at worst),
    # and the terms are unknown: the largest value stands in, values below 1/64 of it judged against that.
    deviation = np.abs(case.g - case.e) / (np.abs(case.e) + case.scale * 2.0**-6)
    narrow = computed_in(case.g, case.dtype)
    proven = next((band for band in BANDS if band.dtype is narrow), None)
    wrong = deviation > (proven.evidenced if proven else RTOL)
    tiny = np.finfo(narrow or np.float32).smallest_normal
    if wrong.any() and case.real and not case.g[wrong].any() and (np.abs(case.e[wrong]) < tiny).all():
        return say("underflow")
    worst = float(deviation.max())
    for band in BANDS:
        if band is proven and worst <= band.evidenced:
            return say(f"precision-{band.name}")
        # Errors of float16's size also come from float32 parts that large magnitudes amplify (an
        # angle at position 100,000): only values on float16's grid say float16.
        sized = band.name != "float16" and band.low <= worst <= band.high
        if sized and _noise(case, band.pattern):
            return say(f"precision-{band.name}")
    return AMBIGUOUS if case.fits(case.e) else None


def _noise(case: Case, pattern: int) -> bool:
    """Whether the differences look like round-off: errors of both signs, not one factor for all values.

    On size alone a small systematic error (an epsilon in a denominator) would pass for round-off;
    round-off is noise. Fewer than ``pattern`` differing values show no pattern: then their size
    is all there is, and ``pattern`` = 1 accepts it.
    """
    error = np.real(case.g - case.e)[case.g != case.e]
    if error.size < pattern:
        return False
    if error.size < 4 or case.constant():
        return True
    return bool((error > 0).any() and (error < 0).any()) and not _systematic(case)


def _systematic(case: Case) -> bool:
    """Whether one factor (for all values, or for each line along an axis) or one offset explains the error.

    It does when it leaves a tenth of it or less; lines of four values at least, as a factor of
    their own fits fewer by chance.
    """
    models = [case.ratio() * case.e, case.e + np.mean(case.g - case.e)]
    if case.real:
        for axis, length in enumerate(case.e.shape):
            if length >= 4 and case.e.ndim >= 2:
                square = np.sum(case.e * case.e, axis=axis, keepdims=True)
                factor = np.sum(case.e * case.g, axis=axis, keepdims=True) / np.where(square == 0, 1, square)
                models.append(factor * case.e)
    error = np.abs(case.g - case.e).max()
    return any(np.abs(case.g - model).max() <= 0.1 * error for model in models)


def integer(e: int, g: int, sizes: list[tuple[str, float]]) -> Symptom | None:
    """An exact integer against the expected one: wrapped around, through a float, a named factor, off by one."""
    if e == g:
        return None
    for bits in (64, 32):
        if g in (((e + (1 << (bits - 1))) % (1 << bits)) - (1 << (bits - 1)), e % (1 << bits)):
            return say("integer-overflow", dtype=f"int{bits}")
    try:
        with np.errstate(over="ignore"):
            through_float = g in (int(float(e)), int(np.float32(e)))
    except (OverflowError, ValueError):
        through_float = False  # too large even for a float: not this
    if through_float:
        return say("integer-via-float")
    if abs(e) < ROUND_BELOW:
        return None  # small numbers are each other's multiples, and one off each other, by chance
    if abs(g - e) == 1:
        return say("off-by-one", more_less="more" if g > e else "less")
    ratio = Fraction(g, e)
    if ratio == -1:
        return say("sign")
    try:
        factor = factor_name(float(ratio), sizes, tolerance=1e-12)
    except OverflowError:  # a ratio past float's range is no factor a size could name
        return None
    return None if factor is None else say("factor", op=factor)


def integers(case: Case) -> Symptom | None:
    """Whole-number answers that differ from whole-number expectations by exactly one, all the same way."""
    if not case.real or (case.e != np.round(case.e)).any() or (case.g != np.round(case.g)).any():
        return None
    if not case.telling():
        return None  # a token id or a count of 3 is one off another by chance
    step = (case.g - case.e)[case.g != case.e]
    if not ((step == 1).all() or (step == -1).all()):
        return None
    if case.constant() and elementwise(case) not in (None, AMBIGUOUS):
        return AMBIGUOUS  # one more than 1 is also twice 1
    return say("off-by-one", more_less="more" if step[0] > 0 else "less")


def elementwise(case: Case) -> Symptom | None:
    """A relationship each value has with its own expected value: a factor, a sign, abs, an offset, conjugate."""
    ratio = case.ratio()
    if case.fits(ratio * case.e):
        found = _factor(case, ratio)
        if found not in (None, AMBIGUOUS) and case.e.ndim >= 2 and shapes.layout(case) is not None:
            return AMBIGUOUS  # an antisymmetric matrix's transpose is its negation too
        return found
    if not case.real:
        return say("conjugate") if case.fits(np.conj(case.e)) else None
    if (case.e < 0).any() and case.fits(np.abs(case.e)):
        return say("absolute")
    kept = ~case.misfits(case.e) & (case.e != 0)
    if kept.any() and case.fits(np.abs(case.e), np.abs(case.g)):
        return say("sign-part")
    if _unnamed_ok(case) and case.fits(case.e + float(np.mean(case.g - case.e))):
        return say("offset")
    return None


def _factor(case: Case, ratio: Any) -> Symptom | None:
    if abs(np.imag(ratio)) > NAMING_RTOL * abs(ratio):
        return None
    ratio = float(np.real(ratio))
    if abs(ratio + 1) <= NAMING_RTOL:
        return say("sign")
    name = factor_name(ratio, case.sizes, tolerance=NAMING_RTOL)
    if name is not None:
        return say("factor", op=name)
    return say("constant-factor") if _unnamed_ok(case) and case.real and ratio > 0 else AMBIGUOUS


def _unnamed_ok(case: Case) -> bool:
    """Whether an unnamed factor or offset can be told: a scalar, or all-equal values, are a multiple of
    anything and anything plus a constant, and two values are both by a one-in-a-hundred-thousand chance."""
    return case.e.size >= 3 and not case.constant()


def factor_name(ratio: float, sizes: list[tuple[str, float]], *, tolerance: float) -> str | None:
    """``ratio`` as ``× f`` or ``÷ f``: f is 2, a size, its square root or square, or a product of two; else None.

    The constant 2 comes first; then a named parameter that fits, at any level, is said rather
    than a number (a number beside it would tell the parameter's value, and a formula's mistake is
    about its parameters far more often than about a size that happens to be equal); otherwise the
    simplest form that fits wins (one size, then square roots and products). Equal forms are all listed, up to
    :data:`MOST_NAMES`. A size below 1 (a temperature of 0.25) fits the other way round: × 16 is
    ÷ temperature².
    """
    if not math.isfinite(ratio) or ratio <= 0 or abs(ratio - 1) <= tolerance:
        return None
    fits: list[tuple[int, str]] = []
    for depth, level in enumerate(_candidates(sizes)):
        for value, label in level:
            if value > 0 and abs(value - ratio) <= tolerance * ratio:
                fits.append((depth, f"× {label}"))
            elif value > 0 and abs(1 / value - ratio) <= tolerance * ratio:
                fits.append((depth, f"÷ {label}"))
    named = [op for _, op in fits if any(c.isalpha() for c in op)]
    two = [op for depth, op in fits if depth == 0]
    if two:
        chosen = two  # a formula's own constant 2 (keys and values, a half) before a parameter equal to it
    elif named:
        chosen = list(dict.fromkeys(named))
    elif fits:
        simplest = min(depth for depth, _ in fits)
        chosen = list(dict.fromkeys(op for depth, op in fits if depth == simplest))
    else:
        return None
    if len(chosen) > MOST_NAMES:
        return None
    return chosen[0] if len(chosen) == 1 else f"{', '.join(chosen[:-1])} or {chosen[-1]}"


def _candidates(sizes: list[tuple[str, float]]) -> list[list[tuple[float, str]]]:
    """The factors a ratio may be, simplest first: 2; a size; a size's square root or square, or a product of two."""
    two = (2.0, "2")
    base = [(float(value), label) for label, value in sizes]
    powers = [(math.sqrt(value), f"√{label}") for value, label in base] + [(v * v, f"{la}²") for v, la in base]
    products = [(a * b, f"({la}·{lb})") for (a, la), (b, lb) in combinations([two, *base], 2) if la != lb]
    return [[two], base, powers + products]


def rounding(case: Case) -> Symptom | None:
    """Whole numbers where the expected values have fractions: truncated or floored, or rounded or ceiled."""
    # All zeros is what an unwritten function returns; and a whole number or two is as likely any
    # of the four roundings of its fraction as a chance: three differing values at least.
    if not case.real or (case.g != np.round(case.g)).any() or not case.g.any() or case.misfits(case.e).sum() < 3:
        return None
    if case.fits(np.round(case.e)) or case.fits(np.ceil(case.e)):
        return say("rounding")
    if case.fits(np.trunc(case.e)) or case.fits(np.floor(case.e)):
        return say("truncation")
    return None
