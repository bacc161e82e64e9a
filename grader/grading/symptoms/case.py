"""The values a diagnosis compares, and when a relationship fits them."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.grading.symptoms.words import Symptom
from grader.grading.tolerances import SYMPTOM_ATOL, SYMPTOM_RTOL

#: A relationship fits within these (see :mod:`grader.grading.tolerances`).
RTOL, ATOL = SYMPTOM_RTOL, SYMPTOM_ATOL
#: How many values :meth:`Case.fits` compares before all of them.
_PROBES = 64
#: Whole numbers and sixteenths below this are round: they meet relationships by chance.
ROUND_BELOW = 16
#: What a test returns when the data fit more than one reading: nothing is said, and no weaker test runs.
AMBIGUOUS = Symptom("ambiguous", "")


@dataclass
class Case:
    """The expected and the student's values as float64 (or complex128), with what the tests share."""

    e: np.ndarray
    g: np.ndarray
    #: The student's own dtype (its values were converted for the comparison).
    dtype: np.dtype[Any]
    #: (label, value): a parameter's name, or a dimension written as its value.
    sizes: list[tuple[str, float]]
    #: The largest expected magnitude: the absolute part of the tolerance is relative to it.
    scale: float = 1.0

    @property
    def real(self) -> bool:
        return self.e.dtype.kind == "f"

    def fits(self, model: np.ndarray, got: np.ndarray | None = None) -> bool:
        """Whether ``got`` (the student's values, or a part of them) is ``model`` everywhere, within tolerance.

        A few values spread over the array are compared first: most readings fail on them, at no cost.
        """
        got = self.g if got is None else got
        if got.size > 4 * _PROBES:
            picks = _picks(got.size)
            if self.misfits(np.asarray(model).flat[picks], got.flat[picks]).any():
                return False
        return not self.misfits(model, got).any()

    def misfits(self, model: np.ndarray, got: np.ndarray | None = None) -> np.ndarray:
        """Where ``got`` (by default the student's values) is not ``model``."""
        got = self.g if got is None else got
        return ~(np.abs(got - model) <= RTOL * np.abs(model) + ATOL * self.scale)

    def constant(self) -> bool:
        """Whether every expected value is the same: then a factor and an offset cannot be told apart."""
        return bool((self.e == self.e.flat[0]).all())

    def telling(self, where: np.ndarray | None = None) -> bool:
        """Whether the expected values at ``where`` (by default, where the student's differ) bear out a relationship.

        Fractions do: one met by chance on one of them is a one in a hundred thousand event. Small
        round numbers (whole numbers, halves, quarters, … below :data:`ROUND_BELOW`) meet many by
        chance, 6 being 3 × 2 and 5 + 1 alike: then at least three different ones are needed.
        """
        values = self.e[self.misfits(self.e) if where is None else where]
        if values.size == 0:
            return False
        sixteenths = values * 16
        round_ = (np.abs(values) < ROUND_BELOW) & (sixteenths == np.round(sixteenths))
        return not round_.all() or np.unique(values).size >= 3

    def ratio(self) -> Any:
        """The least-squares factor from the expected values to the student's (0 when every expected value is 0)."""
        e, g = self.e / self.scale, self.g / self.scale  # squares of values near float64's largest overflow
        norm = np.vdot(e, e)
        return np.vdot(e, g) / norm if norm else 0.0


@functools.lru_cache(maxsize=64)
def _picks(size: int) -> np.ndarray:
    """:data:`_PROBES` flat indices spread evenly over ``size`` values, first and last included."""
    return np.arange(_PROBES) * (size - 1) // (_PROBES - 1)


def computed_in(values: np.ndarray, dtype: np.dtype[Any]) -> type[np.floating[Any]] | None:
    """float16 or float32 when the values are of that dtype, or all lie on its grid using more bits than round numbers.

    Round numbers (0.5, 3.0) lie on every grid, but values that use 9 to 11 significant bits and
    are all float16 values are float16 results cast up: a float64 result lands on that grid only by
    a chance of 2^-42 per value. At least three such values (or every one, when fewer) are needed.
    """
    if dtype.type in (np.float16, np.float32):
        return dtype.type
    parts = values.view(np.float64) if values.dtype.kind == "c" else values
    for narrow, round_bits in ((np.float16, 8), (np.float32, 16)):
        with np.errstate(over="ignore"):
            on_grid = (parts.astype(narrow).astype(np.float64) == parts).all()
        if on_grid:
            mantissa = np.frexp(parts)[0] * 2.0**round_bits
            if int((mantissa != np.round(mantissa)).sum()) >= min(3, parts.size):
                return narrow
    return None
