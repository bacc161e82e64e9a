"""Hidden checks for "Rotary Position Embeddings".

Expected values come from complex numbers, not from cosines and sines laid out by hand: each pair
(x[2i], x[2i+1]) is the complex number x[2i] + j·x[2i+1], and rotating it by θ is multiplying it by
e^{jθ}. The frequencies are e^{−(2i/d)·ln(base)}. A wrong answer is named by the grader, by
comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, fail

# --------------------------------------------------------------------------- independent reference


def expected_rope(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """Rotate each pair as a complex number: (a + jb)·e^{jθ}."""
    d = x.shape[1]
    pairs = x[:, 0::2] + 1j * x[:, 1::2]
    theta = positions[:, None].astype(np.float64) * np.exp(-np.log(base) * np.arange(d // 2) * 2 / d)
    turned = pairs * np.exp(1j * theta)
    return np.stack([turned.real, turned.imag], axis=-1).reshape(x.shape)


def expect_rotated(got: Any, x: np.ndarray, positions: np.ndarray, base: float, what: str, **tol: float) -> None:
    """The form first (a float64 array shaped like x), then the values."""
    if isinstance(got, np.ndarray) and got.shape == x.shape and got.dtype != np.float64:
        fail(f"{what} should be a float64 array, got dtype {got.dtype}", hint="form")
    expect_array(got, expected_rope(x, positions, base), what=what, hint="form", **tol)


def case(rng: np.random.Generator, T: int, d: int, max_position: int) -> tuple[np.ndarray, np.ndarray]:
    return rng.normal(size=(T, d)), rng.integers(0, max_position, size=T)


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    x = np.array([[1.0, 2.0, 3.0, 4.0]] * 3)
    positions = np.array([0, 1, 2])
    expect_rotated(student.rope(x, positions, 100.0), x, positions, 100.0, what="rope(x, [0, 1, 2], 100.0)")


@check("rope returns a new float64 array shaped like x", hint="form")
def output_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    x, positions = case(rng, 3, 6, 50)
    got = student.rope(x, positions, 10000.0)
    if not isinstance(got, np.ndarray) or got.shape != (3, 6) or got.dtype != np.float64:
        fail(f"the rotated x, for x of shape (3, 6), should be a float64 array of shape (3, 6), got {describe(got)}")


@check("Many shapes and bases, d from 2 to 128", hint="form")
def many_shapes(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = []
    for T, d, base in ((1, 2, 10000.0), (5, 2, 10.0), (4, 4, 10000.0), (7, 6, 2.5), (9, 8, 10000.0),
                       (6, 16, 500000.0), (11, 64, 10000.0), (3, 128, 10000.0), (8, 10, 1000.0)):  # fmt: skip
        x, positions = case(rng, T, d, 2048)
        cases.append((x, positions, base))
    results = student.rope.each(cases)
    for n, ((x, positions, base), got) in enumerate(zip(cases, results, strict=True), start=1):
        T, d = x.shape
        expect_rotated(got, x, positions, base, what=f"the rotated x, case {n} of {len(cases)} (T={T}, d={d})")


@check("Positions that are not 0, 1, 2, …", hint="positions")
def positions_given(student: Student) -> None:
    rng = np.random.default_rng(3)
    labelled = [
        (np.array([0, 1, 2, 3, 0, 1, 2]), "two packed sequences, each starting at position 0"),
        (np.array([4095]), "one decoding step at a far position"),
        (np.array([9, 8, 7, 6, 5]), "positions in decreasing order"),
        (np.array([3, 3, 3]), "one position repeated"),
        (np.arange(100, 106), "a chunk that does not start at position 0"),
    ]
    cases = [(rng.normal(size=(len(positions), 8)), positions, 10000.0) for positions, _ in labelled]
    for (x, positions, base), (_, label), got in zip(cases, labelled, student.rope.each(cases), strict=True):
        expect_rotated(got, x, positions, base, what=f"the rotated x ({label})")


@check("Long-context positions (up to 131,072) stay accurate", hint="precision")
def long_context(student: Student) -> None:
    rng = np.random.default_rng(4)
    cases = [(*case(rng, 16, 128, 131072), 500000.0), (*case(rng, 8, 64, 32768), 10000.0)]
    for _, positions, _ in cases:
        positions[0] = positions.max() + 1  # the largest position first
    for n, ((x, positions, base), got) in enumerate(zip(cases, student.rope.each(cases), strict=True), start=1):
        what = f"the rotated x (long-context positions, case {n} of {len(cases)}, T={x.shape[0]}, d={x.shape[1]})"
        expect_rotated(got, x, positions, base, what=what, rtol=1e-9, atol=1e-9)


@check("Attention scores depend only on the distance between positions", hint="form")
def relative_scores(student: Student) -> None:
    rng = np.random.default_rng(5)
    T, d = 6, 16
    Q, K = rng.normal(size=(T, d)), rng.normal(size=(T, d))
    positions = rng.integers(0, 500, size=T)
    shifted = positions + 1000
    calls = [(Q, positions, 10000.0), (K, positions, 10000.0), (Q, shifted, 10000.0), (K, shifted, 10000.0)]
    q, k, q_shifted, k_shifted = student.rope.each(calls)
    for got, (x, *_), name in zip((q, k, q_shifted, k_shifted), calls, ("Q", "K", "Q", "K"), strict=True):
        if not isinstance(got, np.ndarray) or got.shape != x.shape:
            fail(f"the rotated {name} should have shape {x.shape}, got {describe(got)}", hint="form")
    scores, scores_shifted = q @ k.T, q_shifted @ k_shifted.T
    if not np.allclose(scores, scores_shifted, rtol=1e-6, atol=1e-9):
        fail("the scores of the rotated Q and K changed when every position moved by the same amount: each pair "
             "must be turned by a rotation, so that only the distance between two positions counts",
             hint=None)  # fmt: skip
    for got, (x, pos, base), name in zip((q, k), calls, ("Q", "K"), strict=False):
        expect_rotated(got, x, pos, base, what=f"the rotated {name} (T={T}, d={d})")


@check("The input x is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    rng = np.random.default_rng(6)
    x, positions = case(rng, 5, 8, 100)
    # One x for two calls in one crossing: a first call that rotates x in place hands the second
    # call an x already rotated, and its answer is rotated twice.
    first, second = student.rope.each([(x, positions, 10000.0), (x, positions, 10000.0)])
    twice = expected_rope(expected_rope(x, positions, 10000.0), positions, 10000.0)
    if isinstance(second, np.ndarray) and second.shape == x.shape and np.allclose(second, twice):
        fail("a second call with the same x returned x rotated twice: the first call rotated x in place")
    expect_rotated(first, x, positions, 10000.0, what="the rotated x, first call")
    expect_rotated(second, x, positions, 10000.0, what="the rotated x, second call with the same x")
