"""Numbers that show their difference: enough digits to tell two values apart, and a round-off sized error in words.

The round-off bands come from numpy's machine epsilons. One rounding to a dtype moves a value by
at most eps/2 of itself; a computation of n steps accumulates about √n·eps/2 typically and n·eps/2
at worst, so sums of up to a few thousand terms stay within a few tens of eps. Hence a relative
error from eps/16 (smaller is too small to come from that dtype, bar luck) to 64 eps is float32
round-off; for float16 the band stops at 4 eps (0.4 %), because an error that large is also the size
of real mistakes (an epsilon in a denominator, a slightly wrong constant), unless the values
themselves prove float16 (:func:`grader.grading.symptoms.case.computed_in`): then up to 16 eps. For the
same reason a diagnosis names float16 on size alone only over four values or more, whose errors
must look like round-off (both signs); messages about one number (:func:`error_in_words`) state
the size as a question. The two
bands stay an order of magnitude apart, so neither dtype is named for the other's error; between
them, and outside them, nothing is said.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Band:
    """The relative errors that are a dtype's round-off: ``low``–``high`` on size alone, up to ``evidenced``
    when the values are that dtype's."""

    name: str
    dtype: type[np.floating[Any]]
    low: float
    high: float
    evidenced: float
    #: The fewest differing values that, on size alone, show the pattern of round-off (both signs).
    pattern: int


_EPS16, _EPS32 = float(np.finfo(np.float16).eps), float(np.finfo(np.float32).eps)
#: Narrowest first: values that prove float16 also lie on float32's grid.
BANDS = (
    Band("float16", np.float16, _EPS16 / 16, 4 * _EPS16, 16 * _EPS16, pattern=4),
    Band("float32", np.float32, _EPS32 / 16, 64 * _EPS32, 64 * _EPS32, pattern=1),
)
#: Fewest and most significant digits shown: 17 tell any two float64 values apart.
MIN_DIGITS, MAX_DIGITS = 6, 17


def shown_apart(expected: Any, got: Any) -> tuple[str, str]:
    """The two numbers as text, with the fewest significant digits (6 to 17) at which the texts differ.

    So "expected 0.143877, got 0.143877" cannot happen: that pair is shown as 0.143877 and
    0.1438772. Integers are shown exactly, with thousands separators; equal values with 6 digits.
    """
    if is_int(expected) and is_int(got):
        return f"{int(expected):,}", f"{int(got):,}"
    kind = complex if isinstance(expected, complex) or isinstance(got, complex) or np.iscomplexobj(got) else float
    a, b = kind(expected), kind(got)
    for digits in range(MIN_DIGITS, MAX_DIGITS + 1):
        texts = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if texts[0] != texts[1]:
            return texts
    return f"{a:.{MIN_DIGITS}g}", f"{b:.{MIN_DIGITS}g}"  # equal (or both nan): as short as they go


def error_in_words(expected: Any, got: Any) -> str | None:
    """When ``got`` is off ``expected`` by a round-off sized relative error, that said in words; else None.

    E.g. "they differ in the 7th significant digit, the size of float32 round-off: is a part
    computed in float32?"
    """
    try:
        a, b = float(expected), float(got)
    except (TypeError, ValueError, OverflowError):
        return None
    if not (math.isfinite(a) and math.isfinite(b)) or a == 0 or a == b:
        return None
    relative = abs(b - a) / abs(a)
    for band in BANDS:
        if band.low <= relative <= band.high:
            digit = math.floor(math.log10(abs(a))) - math.floor(math.log10(abs(b - a))) + 1
            return (
                f"they differ in the {ordinal(digit)} significant digit, the size of {band.name} round-off: "
                f"is a part computed in {band.name}?"
            )
    return None


def ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th, …, 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def is_int(value: Any) -> bool:
    """A Python or numpy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))
