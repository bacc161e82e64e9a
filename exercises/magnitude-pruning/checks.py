"""Hidden checks for "Magnitude Pruning".

The expected mask comes from Python's ``sorted`` on explicit (magnitude, index) keys, one group
at a time, and the count from ``math.floor``: not numpy's argsort. Every (sparsity, n) used is
one where the count is decidable: sparsity · n is an exact integer, or at least 1e-9 away from
one. A wrong answer is named by the grader, by comparing it with the mutants.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail, values_shown

# --------------------------------------------------------------------------- independent reference


def pruned_count(sparsity: float, n: int) -> int:
    product = sparsity * n
    exact = Fraction(sparsity) * n
    assert exact.denominator == 1 or abs(exact - round(exact)) > Fraction(1, 10**9), (sparsity, n)
    return math.floor(product)


def expected_mask(w: np.ndarray, sparsity: float, per_row: bool) -> np.ndarray:
    rows, cols = w.shape
    flat = w.reshape(-1).tolist()
    groups = [list(range(r * cols, (r + 1) * cols)) for r in range(rows)] if per_row else [list(range(rows * cols))]
    keep = [True] * len(flat)
    for group in groups:
        by_magnitude = sorted(group, key=lambda i: (abs(flat[i]), i))
        for i in by_magnitude[: pruned_count(sparsity, len(group))]:
            keep[i] = False
    return np.array(keep, dtype=bool).reshape(w.shape)


# --------------------------------------------------------------------------- comparing answers


def expect_mask(got: Any, want: np.ndarray, *, what: str) -> None:
    if not isinstance(got, np.ndarray) or got.shape != want.shape or got.dtype != np.bool_:
        fail(f"{what} should be a bool array of shape {want.shape}, got {describe(got)}", hint="form")
    if np.array_equal(got, want):
        return
    wrong = np.argwhere(got != want)
    first = tuple(int(i) for i in wrong[0])
    # Which way the first entry is wrong is the kind of difference; its weight and the sparsity stay hidden.
    way = "kept where it should be removed" if got[first] else "removed where it should be kept"
    shown = f" (expected {bool(want[first])}, got {bool(got[first])})" if values_shown() else ""
    fail(
        f"{what} differs: first at index {first}{shown}, a weight {way}; {len(wrong)} of {want.size} entries "
        f"differ; it keeps {int(got.sum())} weights where {int(want.sum())} should be kept",
        hint=None, expected=want, got=got,
    )  # fmt: skip


def prune_and_compare(student: Student, cases: list[tuple[np.ndarray, float, bool, str]]) -> None:
    """magnitude_prune on every case in one crossing; the mask first, then the pruned weights.

    Each case is named by its label and number, not by its sparsity (a hidden input).
    """
    results = student.magnitude_prune.each([(w, s, per_row) for w, s, per_row, _ in cases])
    for n, ((w, sparsity, per_row, label), result) in enumerate(zip(cases, results, strict=True), start=1):
        what = f"{label}, case {n} of {len(cases)}, {'per row' if per_row else 'globally'}"
        pruned, mask = expect_sequence(result, 2, what=f"magnitude_prune's return value ({what})", hint="form")
        want = expected_mask(w, sparsity, per_row)
        expect_mask(mask, want, what=f"mask ({what})")
        expect_array(pruned, np.where(want, w, 0.0), what=f"pruned ({what})", dtype=np.float64, exact=True,
                     hint="form")  # fmt: skip


WORKED = np.array([[0.5, -0.1, 0.3, -0.3, 0.05], [2.0, -1.0, 0.1, 0.0, -0.4]])


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    prune_and_compare(student, [(WORKED, 0.5, True, "worked example"), (WORKED, 0.5, False, "worked example")])


@check("pruned is float64 and mask is bool, both of the shape of w", hint="form")
def output_forms(student: Student) -> None:
    rng = np.random.default_rng(1)
    w = rng.normal(size=(4, 6))
    for per_row, result in zip(
        (True, False), student.magnitude_prune.each([(w, 0.5, True), (w, 0.5, False)]), strict=True
    ):
        mode = "per row" if per_row else "globally"
        pruned, mask = expect_sequence(result, 2, what=f"magnitude_prune's return value ({mode})")
        if not isinstance(pruned, np.ndarray) or pruned.shape != (4, 6) or pruned.dtype != np.float64:
            fail(
                f"pruned ({mode}, w of shape (4, 6)) should be a float64 array of shape (4, 6), got {describe(pruned)}"
            )
        if not isinstance(mask, np.ndarray) or mask.shape != (4, 6) or mask.dtype != np.bool_:
            fail(f"mask ({mode}, w of shape (4, 6)) should be a bool array of shape (4, 6), got {describe(mask)}")


@check("Random matrices of many shapes and sparsities")
def random_matrices(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = []
    shapes = ((1, 10), (6, 7), (8, 20), (12, 5), (30, 31), (5, 40), (16, 16))
    for (rows, cols), sparsity in zip(shapes, (0.35, 0.5, 0.875, 0.25, 0.77, 0.6125, 0.1), strict=True):
        # Rows of different sizes: pruning globally and per row remove different weights.
        w = rng.normal(size=(rows, cols)) * 10.0 ** rng.uniform(-1, 1, size=(rows, 1))
        cases += [
            (w, sparsity, True, f"w of shape ({rows}, {cols})"),
            (w, sparsity, False, f"w of shape ({rows}, {cols})"),
        ]
    prune_and_compare(student, cases)


@check("k is rounded down: floor(sparsity · n)", hint="count")
def count_rounds_down(student: Student) -> None:
    rng = np.random.default_rng(3)
    w = rng.normal(size=(4, 10))
    cases = [
        (w, 0.33, True, "w of shape (4, 10), a count that is not whole"),  # ceil gives 4
        (w, 0.37, True, "w of shape (4, 10), a count that is not whole"),  # round and ceil give 4
        (w, 0.33, False, "w of shape (4, 10), a count that is not whole"),
        (w, 0.29, False, "w of shape (4, 10), a count that is not whole"),
        (w, 0.25, True, "w of shape (4, 10), a count ending in a half"),
        (rng.normal(size=(4, 3)), 0.25, True, "w of shape (4, 3), a count below 1"),
        (rng.normal(size=(3, 7)), 0.6, True, "w of shape (3, 7), a count that is not whole"),
    ]
    prune_and_compare(student, cases)


@check("Ties in magnitude go to the lower index, and exactly k weights go", hint="ties")
def ties(student: Student) -> None:
    rng = np.random.default_rng(4)
    few_values = rng.choice([-2.0, -1.0, -0.5, 0.5, 1.0, 2.0], size=(6, 40))  # many equal magnitudes
    signs = np.array([[0.3, -0.3, 0.3, -0.3, 0.1, 0.7, -0.3, 0.3]])  # ties between a weight and its negative
    cases = [
        (few_values, 0.3125, True, "weights of six values, (6, 40)"),
        (few_values, 0.546875, False, "weights of six values, (6, 40)"),
        (few_values, 0.125, False, "weights of six values, (6, 40)"),
        (signs, 0.5, True, "one row of weights and their negatives"),
        (signs, 0.25, False, "one row of weights and their negatives"),
        (np.ones((3, 4)), 0.5, True, "all weights equal"),
        (np.ones((3, 4)), 0.5, False, "all weights equal"),
    ]
    prune_and_compare(student, cases)


@check("Zeros go first, and the sparsities 0 and 1", hint="count")
def edge_sparsities(student: Student) -> None:
    rng = np.random.default_rng(5)
    w = rng.normal(size=(5, 6))
    with_zeros = w.copy()
    with_zeros[[0, 2, 2, 4], [5, 0, 3, 1]] = 0.0
    cases = [
        (w, 0.0, True, "w of shape (5, 6), sparsity 0"),
        (w, 0.0, False, "w of shape (5, 6), sparsity 0"),
        (w, 1.0, True, "w of shape (5, 6), sparsity 1"),
        (w, 1.0, False, "w of shape (5, 6), sparsity 1"),
        (with_zeros, 0.2, True, "w with four zeros"),
        (with_zeros, 0.125, False, "w with four zeros"),
        (rng.normal(size=(7, 1)), 0.5, True, "a single column"),
        (rng.normal(size=(7, 1)), 0.5, False, "a single column"),
    ]
    prune_and_compare(student, cases)


@check("Prune by magnitude |w|, not by value", hint="magnitude")
def negative_weights(student: Student) -> None:
    rng = np.random.default_rng(6)
    w = rng.normal(size=(6, 9)) * 3.0
    w[:, 0] = -10.0 - rng.random(6)  # large negative weights must stay
    prune_and_compare(
        student, [(w, 0.4, True, "w with large negative weights"), (w, 0.4, False, "w with large negative weights")]
    )


@check("Per row: every row keeps its largest weights, however small the row", hint="per-row")
def rows_of_different_sizes(student: Student) -> None:
    rng = np.random.default_rng(7)
    w = rng.normal(size=(5, 8))
    w[1] *= 1e-3  # globally this row goes entirely; per row it keeps its largest weights
    w[3] *= 1e3
    prune_and_compare(
        student, [(w, 0.5, True, "rows of very different sizes"), (w, 0.5, False, "rows of very different sizes")]
    )


@check("w is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    rng = np.random.default_rng(8)
    w = rng.normal(size=(4, 6))
    # The same array for every call of the batch: a call that zeroes weights of w in place changes
    # what the next call sees (zeros have the smallest magnitude, and go first).
    cases = [(w, 0.5, True, "first call"), (w, 0.25, False, "second call on the same w"), (w, 0.75, True, "third call")]
    prune_and_compare(student, cases)
