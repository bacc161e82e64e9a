"""Hidden checks for "LayerNorm, Forward and Backward".

The expected values never use the backward formula. ``out`` is computed row by row with exactly
rounded sums (``math.fsum``); the four gradients come from the complex step: L = Σ dout ⊙ out is
evaluated in complex arithmetic with one input nudged by i·h, and ∂L/∂input is Im(L) / h, exact to
rounding for an analytic function (no subtraction of nearly equal values, unlike finite
differences). Rows are independent, so nudging column j of every row at once gives column j of dx
from each row's own Im(L_row) / h. A wrong answer is named by the grader, by comparing it with the
exercise's mutants on the same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, expect_array, expect_sequence, fail

NAMES = ("out", "dx", "dgamma", "dbeta")
H = 1e-20  # the complex step


# --------------------------------------------------------------------------- independent expected values


def forward_rows(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """out, one row at a time, from exactly rounded sums."""
    rows = x.reshape(-1, x.shape[-1])
    out = np.empty_like(rows)
    for r, row in enumerate(rows):
        n = len(row)
        mean = math.fsum(row) / n
        centred = [value - mean for value in row]
        std = math.sqrt(math.fsum(c * c for c in centred) / n + eps)
        out[r] = [c / std * g + b for c, g, b in zip(centred, gamma, beta, strict=True)]
    return out.reshape(x.shape)


def complex_forward(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> np.ndarray:
    """LayerNorm in complex arithmetic (no abs, no conjugate: an analytic function of its inputs)."""
    mean = x.sum(axis=-1, keepdims=True) / x.shape[-1]
    centred = x - mean
    variance = (centred * centred).sum(axis=-1, keepdims=True) / x.shape[-1]
    return centred / np.sqrt(variance + eps) * gamma + beta


def expected(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, dout: np.ndarray, eps: float) -> tuple:
    D = x.shape[-1]
    rows, douts = x.reshape(-1, D), dout.reshape(-1, D)
    cx, cg, cb = rows.astype(complex), gamma.astype(complex), beta.astype(complex)
    dx = np.empty_like(rows)
    dgamma = np.empty(D)
    dbeta = np.empty(D)
    for j in range(D):
        nudged = cx.copy()
        nudged[:, j] += 1j * H
        dx[:, j] = (douts * complex_forward(nudged, cg, cb, eps)).sum(axis=1).imag / H
        nudged = cg.copy()
        nudged[j] += 1j * H
        dgamma[j] = (douts * complex_forward(cx, nudged, cb, eps)).sum().imag / H
        nudged = cb.copy()
        nudged[j] += 1j * H
        dbeta[j] = (douts * complex_forward(cx, cg, nudged, eps)).sum().imag / H
    return forward_rows(x, gamma, beta, eps), dx.reshape(x.shape), dgamma, dbeta


def expect_result(got: Any, want: tuple, what: str) -> None:
    """The form first (a tuple of four float64 arrays of the right shapes), then each value."""
    parts = expect_sequence(got, 4, what=f"{what}: the return value", hint="form")
    for name, part, w in zip(NAMES, parts, want, strict=True):
        if not isinstance(part, np.ndarray) or part.shape != w.shape or part.dtype != np.float64:
            expect_array(part, w, what=f"{what}: {name}", dtype=np.float64, hint="form")
    for name, part, w in zip(NAMES, parts, want, strict=True):
        atol = 1e-9 * max(1.0, float(np.abs(w).max(initial=0.0)))
        expect_array(part, w, what=f"{what}: {name}", rtol=1e-9, atol=atol, hint="form")


Case = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]


def random_case(rng: np.random.Generator, shape: tuple[int, ...], eps: float) -> Case:
    D = shape[-1]
    x = rng.normal(size=shape) * rng.uniform(0.5, 3.0) + rng.normal(size=D)
    return x, rng.normal(size=D) + 1.0, rng.normal(size=D), rng.normal(size=shape), eps


def grade(student: Student, cases: list[Case], labels: list[str]) -> None:
    """Every case in one crossing, then each answer against its expected values."""
    results = student.layernorm_fwd_bwd.each(cases)
    for case, label, got in zip(cases, labels, results, strict=True):
        expect_result(got, expected(*case), label)


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement: one row of two", public=True, points=2, hint="dx-formula")
def worked_example(student: Student) -> None:
    x, gamma, beta = np.array([[1.0, 3.0]]), np.array([2.0, 3.0]), np.array([0.5, 0.0])
    dout = np.array([[1.0, 0.0]])
    want = (np.array([[-1.5, 3.0]]), np.array([[0.0, 0.0]]), np.array([-1.0, 0.0]), np.array([1.0, 0.0]))
    expect_result(student.layernorm_fwd_bwd(x, gamma, beta, dout, 0.0), want, "the row (1, 3)")


@check("The second example from the statement: one row of four", public=True, points=2, hint="dx-formula")
def row_of_four(student: Student) -> None:
    x, gamma, beta = np.array([[1.0, 1.0, 3.0, 3.0]]), np.array([2.0, 1.0, 1.0, 1.0]), np.zeros(4)
    dout = np.array([[1.0, 0.0, 0.0, 0.0]])
    want = (
        np.array([[-2.0, -1.0, 1.0, 1.0]]),
        np.array([[1.0, -1.0, 0.0, 0.0]]),
        np.array([-1.0, 0.0, 0.0, 0.0]),
        np.array([1.0, 0.0, 0.0, 0.0]),
    )
    expect_result(student.layernorm_fwd_bwd(x, gamma, beta, dout, 0.0), want, "the row (1, 1, 3, 3)")


@check("Returns a tuple of four float64 arrays: out and dx shaped like x, dgamma and dbeta (D,)", hint="form")
def result_form(student: Student, rng: np.random.Generator) -> None:
    x, gamma, beta, dout, eps = random_case(rng, (3, 5), 1e-5)
    got = student.layernorm_fwd_bwd(x, gamma, beta, dout, eps)
    parts = expect_sequence(got, 4, what="the return value")
    for name, part, shape in zip(NAMES, parts, [(3, 5), (3, 5), (5,), (5,)], strict=True):
        if not isinstance(part, np.ndarray) or part.shape != shape or part.dtype != np.float64:
            expect_array(part, np.zeros(shape), what=f"{name} for a (3, 5) input", dtype=np.float64)


@check("Random rows, several widths and values of eps", hint="dx-formula")
def random_rows(student: Student, rng: np.random.Generator) -> None:
    shapes = [(3, 5), (6, 4), (2, 8), (5, 3), (7, 16), (1, 6), (4, 2)]
    epsilons = [1e-5, 0.0, 1e-5, 0.1, 1e-6, 1.0, 1e-3]
    cases = [random_case(rng, shape, eps) for shape, eps in zip(shapes, epsilons, strict=True)]
    labels = [f"random input {n} of {len(cases)}: shape {shape}" for n, shape in enumerate(shapes, start=1)]
    grade(student, cases, labels)


@check("Batched inputs (B, T, D) and more: dgamma and dbeta sum over every axis but the last", hint="reduce-axes")
def batched_inputs(student: Student, rng: np.random.Generator) -> None:
    shapes = [(2, 3, 4), (3, 2, 5), (2, 2, 3, 6), (4, 1, 3), (1, 5, 2)]
    cases = [random_case(rng, shape, 1e-5) for shape in shapes]
    labels = [f"batched input {n} of {len(cases)}: shape {shape}" for n, shape in enumerate(shapes, start=1)]
    grade(student, cases, labels)


@check("A single row: x of shape (D,)", hint="reduce-axes")
def one_dimensional(student: Student, rng: np.random.Generator) -> None:
    sizes = [5, 2, 9]
    cases = [random_case(rng, (D,), 1e-5) for D in sizes]
    labels = [f"a single row of {D}, shape ({D},)" for D in sizes]
    grade(student, cases, labels)


@check("Constant rows, where only eps keeps the division finite", hint="eps")
def constant_rows(student: Student, rng: np.random.Generator) -> None:
    x, gamma, beta, dout, _ = random_case(rng, (4, 6), 0.0)
    x[1] = 2.5  # a constant row among ordinary ones
    x[3] = -1.0
    single = random_case(rng, (3, 1), 0.0)  # D = 1: every row is constant
    flat = random_case(rng, (2, 3), 0.0)
    cases = [(x, gamma, beta, dout, 1e-3), (*single[:4], 1e-5), (np.full((2, 3), 7.0), *flat[1:4], 0.5)]
    labels = [
        "a (4, 6) input with two constant rows",
        "a (3, 1) input: rows of one value",
        "a (2, 3) input, every row constant",
    ]
    grade(student, cases, labels)


@check("A row with mean 1000 and spread 0.01: the variance from x − mean, not from mean(x²) − mean²", hint="two-pass")
def large_mean(student: Student, rng: np.random.Generator) -> None:
    x, gamma, beta, dout, _ = random_case(rng, (3, 8), 0.0)
    x[0] = 1000.0 + 0.01 * rng.normal(size=8)
    x[2] = -1000.0 + 0.01 * rng.normal(size=8)
    grade(student, [(x, gamma, beta, dout, 1e-9)], ["a (3, 8) input, two of its rows far from 0 with a tiny spread"])


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    x, gamma, beta, dout, eps = random_case(rng, (3, 4), 1e-5)
    # The same arrays for two calls in one crossing: a call that changes its arguments in place
    # changes what the second call sees.
    first, second = student.layernorm_fwd_bwd.each([(x, gamma, beta, dout, eps), (x, gamma, beta, dout, eps)])
    want = expected(x, gamma, beta, dout, eps)
    expect_result(first, want, "the first of two calls on the same arrays")
    if isinstance(first, (tuple, list)) and isinstance(second, (tuple, list)) and len(second) == 4:
        same = all(isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and np.allclose(a, b)
                   for a, b in zip(first, second, strict=True))  # fmt: skip
        if not same:
            fail("a second call on the same arrays gives another answer: the first call changed its inputs in place")
    expect_result(second, want, "the second of two calls on the same arrays")
