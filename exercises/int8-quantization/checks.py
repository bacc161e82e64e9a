"""Hidden checks for "Int8 Weight Quantization".

Expected values are computed here element by element in plain Python (the largest magnitude with
``max(abs(x) ...)``, the rounding with the built-in ``round``, which rounds half to even), not
with numpy's vectorised path. Exact ties are made with scales that are powers of two, so that
``w / s`` is exactly halfway and floating point decides it; random inputs are kept at least 1e-6
away from any tie. A wrong answer is named by the grader, by comparing it with the mutants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_float, expect_sequence, fail

# --------------------------------------------------------------------------- independent reference


def expected_quantization(w: np.ndarray, per_channel: bool) -> tuple[np.ndarray, np.ndarray]:
    """(q, scale) by the statement's rule, one group (a row, or the whole matrix) at a time."""
    rows = w.tolist()
    groups = rows if per_channel else [[x for row in rows for x in row]]
    scales = []
    for group in groups:
        largest = max(abs(x) for x in group)
        scales.append(largest / 127 if largest != 0 else 1.0)
    q = [[min(127, max(-127, round(x / scales[i if per_channel else 0]))) for x in row] for i, row in enumerate(rows)]
    return np.array(q, dtype=np.int8), np.array(scales, dtype=np.float64).reshape(-1, 1)


def expected_error(w: np.ndarray, per_channel: bool) -> float:
    q, scale = expected_quantization(w, per_channel)
    rows = w.tolist()
    errors = []
    for i, row in enumerate(rows):
        s = float(scale[i if per_channel else 0, 0])
        errors += [abs(x - int(q[i, j]) * s) for j, x in enumerate(row)]
    return max(errors)


def away_from_ties(w: np.ndarray, per_channel: bool) -> np.ndarray:
    """w, with any weight whose w / s lies within 1e-6 of a tie moved off it (random data: rarely any)."""
    w = w.copy()
    while True:
        _, scale = expected_quantization(w, per_channel)
        x = np.abs(w / scale)
        near = np.abs(x - np.floor(x) - 0.5) < 1e-6
        if not near.any():
            return w
        w[near] *= 1.0 + 1e-4


def random_matrix(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    """Rows of very different magnitudes, as in real layers: per-row and per-tensor scales differ."""
    return rng.normal(size=(rows, cols)) * 10.0 ** rng.uniform(-3, 2, size=(rows, 1))


# --------------------------------------------------------------------------- comparing answers


def expect_q(got: Any, want: np.ndarray, *, what: str) -> None:
    expect_array(got, want, what=what, dtype=np.int8, exact=True, hint="form")


def expect_scale(got: Any, want: np.ndarray, *, what: str) -> None:
    expect_array(got, want, what=what, dtype=np.float64, rtol=1e-9, atol=0, hint="form")


def expect_error(got: Any, want: float, *, what: str) -> None:
    """A Python or numpy float (not a 0-d array), close to ``want``."""
    if isinstance(got, bool) or not isinstance(got, (float, np.floating)):
        fail(f"{what} should be a float, got {describe(got)}", hint="form", expected=want, got=got)
    expect_float(got, want, what=what, rtol=1e-9, atol=1e-15, hint="form")


def quantize_and_compare(student: Student, cases: list[tuple[np.ndarray, bool, str]]) -> None:
    """quantize_int8 on every case in one crossing; q and scale must be the expected ones."""
    results = student.quantize_int8.each([(w, per_channel) for w, per_channel, _ in cases])
    for (w, per_channel, label), result in zip(cases, results, strict=True):
        mode = "per-channel" if per_channel else "per-tensor"
        what = f"{label}, {mode}"
        q, scale = expect_sequence(result, 2, what=f"quantize_int8's return value ({what})", hint="form")
        want_q, want_scale = expected_quantization(w, per_channel)
        expect_scale(scale, want_scale, what=f"scale ({what})")
        expect_q(q, want_q, what=f"q ({what})")


def errors_and_compare(student: Student, cases: list[tuple[np.ndarray, bool, str]]) -> None:
    results = student.quantization_error.each([(w, per_channel) for w, per_channel, _ in cases])
    for (w, per_channel, label), got in zip(cases, results, strict=True):
        mode = "per-channel" if per_channel else "per-tensor"
        expect_error(got, expected_error(w, per_channel), what=f"quantization_error ({label}, {mode})")


WORKED = np.array([[63.5, -10.0, 3.0, 0.0], [-31.75, 0.625, 0.375, 5.0], [0.0, 0.0, 0.0, 0.0]])


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    quantize_and_compare(student, [(WORKED, True, "worked example"), (WORKED, False, "worked example")])
    q_row = np.array([[127, -20, 6, 0], [-127, 2, 2, 20], [0, 0, 0, 0]], dtype=np.int8)
    q_tensor = np.array([[127, -20, 6, 0], [-64, 1, 1, 10], [0, 0, 0, 0]], dtype=np.int8)
    s_row, s_tensor = np.array([[0.5], [0.25], [1.0]]), np.array([[0.5]])
    got = student.dequantize_int8.each([(q_row, s_row), (q_tensor, s_tensor)])
    expect_array(got[0], [[63.5, -10, 3, 0], [-31.75, 0.5, 0.5, 5], [0, 0, 0, 0]], what="w_hat, per-channel")
    expect_array(got[1], [[63.5, -10, 3, 0], [-32, 0.5, 0.5, 5], [0, 0, 0, 0]], what="w_hat, per-tensor")
    errors_and_compare(student, [(WORKED, True, "worked example"), (WORKED, False, "worked example")])


@check("Shapes and dtypes: q int8, scale float64 (rows, 1) or (1, 1), w_hat float64", hint="form")
def output_forms(student: Student) -> None:
    rng = np.random.default_rng(1)
    w = rng.normal(size=(5, 7))
    results = student.quantize_int8.each([(w, True), (w, False)])
    for per_channel, result in zip((True, False), results, strict=True):
        mode = "per-channel" if per_channel else "per-tensor"
        q, scale = expect_sequence(result, 2, what=f"quantize_int8's return value ({mode})")
        if not isinstance(q, np.ndarray) or q.shape != (5, 7) or q.dtype != np.int8:
            fail(f"q ({mode}, w of shape (5, 7)) should be an int8 array of shape (5, 7), got {describe(q)}")
        want = (5, 1) if per_channel else (1, 1)
        if not isinstance(scale, np.ndarray) or scale.shape != want or scale.dtype != np.float64:
            fail(f"scale ({mode}, w of shape (5, 7)) should be a float64 array of shape {want}, got {describe(scale)}")
    q = rng.integers(-127, 128, size=(5, 7)).astype(np.int8)
    w_hat = student.dequantize_int8(q, np.full((5, 1), 0.01))
    if not isinstance(w_hat, np.ndarray) or w_hat.shape != (5, 7) or w_hat.dtype != np.float64:
        fail(f"dequantize_int8 of a (5, 7) q should be a float64 array of shape (5, 7), got {describe(w_hat)}")
    error = student.quantization_error(w, True)
    if isinstance(error, bool) or not isinstance(error, (float, np.floating)):
        fail(f"quantization_error should return a float, got {describe(error)}")


@check("Random matrices of many shapes, per-channel and per-tensor")
def random_matrices(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = []
    for rows, cols in ((1, 1), (1, 9), (9, 1), (4, 6), (16, 33), (40, 24)):
        w = random_matrix(rng, rows, cols)
        for per_channel in (True, False):
            cases.append((away_from_ties(w, per_channel), per_channel, f"w of shape ({rows}, {cols})"))
    quantize_and_compare(student, cases)


@check("Exact ties round half to even, on both sides of zero", hint="rounding")
def ties_to_even(student: Student) -> None:
    halves = np.array([0.5, 1.5, 2.5, 3.5, 10.5, 125.5, 126.5])
    # Each row: its largest magnitude 127·s with s a power of two, then weights at (n + 1/2)·s.
    rows = []
    for s, sign in ((0.5, 1.0), (2.0**-10, -1.0), (4.0, 1.0), (1.0, -1.0)):
        rows.append(np.concatenate([[sign * 127 * s], halves * s, -halves * s]))
    per_row = np.array(rows)
    # Per-tensor: every row shares the scale 1/8, only the first row reaches 127/8.
    per_tensor = np.array([[127, *halves], [*-halves[::-1], -3], [0.5, -0.5, *halves[:6]]]) / 8
    quantize_and_compare(student, [(per_row, True, "ties, one scale per row"), (per_tensor, False, "ties")])


@check("All-zero rows and an all-zero matrix get the scale 1", hint="zero-scale")
def zero_slices(student: Student) -> None:
    rng = np.random.default_rng(3)
    some_zero = rng.normal(size=(5, 6))
    some_zero[[1, 4]] = 0.0
    zeros = np.zeros((3, 4))
    cases = [
        (some_zero, True, "rows 2 and 5 all zero"),
        (some_zero, False, "rows 2 and 5 all zero"),
        (zeros, True, "an all-zero matrix"),
        (zeros, False, "an all-zero matrix"),
        (np.zeros((1, 1)), False, "a single zero"),
    ]
    quantize_and_compare(student, [(away_from_ties(w, p), p, label) for w, p, label in cases])
    errors_and_compare(student, [(zeros, True, "an all-zero matrix"), (zeros, False, "an all-zero matrix")])


@check("The scale comes from the largest magnitude, even when it is negative", hint="absmax")
def negative_extremes(student: Student) -> None:
    rng = np.random.default_rng(4)
    w = np.abs(rng.normal(size=(4, 8)))
    w[0, 3] = -5.0  # the largest magnitude of row 1 is negative
    w[1] = -w[1]  # row 2 is all negative
    w[2, 0] = -0.25 * w[2].max()  # row 3's largest is positive, with a negative weight too
    w[3, 5] = -9.0  # the largest magnitude of the matrix, negative
    cases = [(away_from_ties(w, p), p, "w with negative extremes") for p in (True, False)]
    negative_row = -np.abs(rng.normal(size=(1, 5))) - 0.5
    cases.append((away_from_ties(negative_row, True), True, "a row of negative weights"))
    quantize_and_compare(student, cases)


@check("dequantize_int8 on int8 matrices and scales made by the checker", hint="form")
def dequantize_given(student: Student) -> None:
    rng = np.random.default_rng(5)
    cases = []
    for rows, cols, per_channel in ((3, 5, True), (3, 5, False), (8, 2, True), (1, 7, False), (6, 6, True)):
        q = rng.integers(-127, 128, size=(rows, cols)).astype(np.int8)
        q[0, 0], q[-1, -1] = -127, 127
        scale = 10.0 ** rng.uniform(-4, 1, size=(rows if per_channel else 1, 1))
        cases.append((q, scale))
    results = student.dequantize_int8.each(cases)
    for (q, scale), got in zip(cases, results, strict=True):
        # Row by row, as a diagonal matrix of scales times q (or the single scale times q).
        want = np.diag(scale[:, 0]) @ q.astype(np.float64) if len(scale) > 1 else float(scale[0, 0]) * q.astype(float)
        what = f"dequantize_int8 (q of shape {q.shape}, scale of shape {scale.shape})"
        if isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype != np.float64:
            fail(f"{what} should have dtype float64, got {describe(got)}")
        expect_array(got, want, what=what, rtol=1e-12, atol=0)


@check("quantization_error is the largest absolute error", hint="error")
def error_values(student: Student) -> None:
    rng = np.random.default_rng(6)
    cases = []
    for rows, cols in ((1, 5), (6, 4), (12, 30), (7, 1)):
        w = random_matrix(rng, rows, cols)
        for per_channel in (True, False):
            cases.append((w, per_channel, f"w of shape ({rows}, {cols})"))
    signed = np.array([[1.0, -0.4, 0.3], [0.1, 0.7, 0.9]])  # its largest error is w - w_hat < 0
    cases += [(signed, True, "a small matrix"), (signed, False, "a small matrix")]
    errors_and_compare(student, cases)


@check("w is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    rng = np.random.default_rng(7)
    w = away_from_ties(away_from_ties(random_matrix(rng, 4, 6), True), False)
    # The same array for three calls in one crossing: a call that changes w changes what the next
    # call sees, and so its answer.
    quantize_and_compare(student, [(w, True, "first call"), (w, False, "second call"), (w, True, "third call")])
    errors_and_compare(student, [(w, False, "first call"), (w, True, "second call"), (w, False, "third call")])
