"""Hidden checks for "Welford Merges and a Blocked LayerNorm".

Expected values never use the merge formula. A merged state is the state of the two data sets put
together, computed from the data in exact rational arithmetic (``fractions.Fraction``): the count,
the mean, and the sum of squared deviations from it, each rounded once at the end. LayerNorm's mean
and variance come from the same exact sums over each whole row, so rstd is exact up to one square
root; y takes the exactly centred value, rounded once, times rstd, gamma, plus beta. A wrong answer
is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from grader.checks import (
    Student,
    check,
    describe,
    expect_array,
    expect_float,
    expect_integer,
    expect_sequence,
    fail,
    scaled_tolerance,
)

State = tuple[int, float, float]
EMPTY: State = (0, 0.0, 0.0)

# --------------------------------------------------------------------------- independent expected values


def exact_stats(values: np.ndarray) -> tuple[int, Fraction, Fraction]:
    """count, mean and the sum of squared deviations of these numbers, exactly."""
    exact = [Fraction(float(v)) for v in values]
    if not exact:
        return 0, Fraction(0), Fraction(0)
    mean = sum(exact) / len(exact)
    return len(exact), mean, sum((v - mean) ** 2 for v in exact)


def state_of(values: np.ndarray) -> State:
    n, mean, m2 = exact_stats(values)
    return n, float(mean), float(m2)


def layernorm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float) -> tuple:
    R, d = x.shape
    y, mean, rstd = np.empty((R, d)), np.empty(R), np.empty(R)
    for r in range(R):
        _, mu, m2 = exact_stats(x[r])
        mean[r] = float(mu)
        rstd[r] = 1.0 / math.sqrt(float(m2 / d + Fraction(eps)))
        centred = np.array([float(Fraction(float(v)) - mu) for v in x[r]])
        y[r] = centred * rstd[r] * gamma + beta
    return y, mean, rstd


# --------------------------------------------------------------------------- comparing answers


def is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_float(value: Any) -> bool:
    return isinstance(value, (float, np.floating)) or (
        isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind == "f"
    )


def expect_state(got: Any, want: State, what: str) -> None:
    """The form first (an int and two floats), then each value: mean and m2 to 1e-9 relative + 1e-12."""
    count, mean, m2 = expect_sequence(got, 3, what=f"{what}: the merged state", hint="form")
    if not is_int(count):
        fail(f"{what}: the count should be an int, got {describe(count)}", hint="form")
    for name, value in (("mean", mean), ("m2", m2)):
        if not is_float(value):
            fail(f"{what}: {name} should be a float, got {describe(value)}", hint="form")
    expect_integer(count, want[0], what=f"{what}: the count", hint="form")
    expect_float(mean, want[1], what=f"{what}: mean", rtol=1e-9, atol=1e-12, hint="form")
    expect_float(m2, want[2], what=f"{what}: m2", rtol=1e-9, atol=1e-12, hint="form")


NAMES = ("y", "mean", "rstd")


def expect_layernorm_form(got: Any, want: tuple, what: str) -> tuple:
    """Three float64 arrays of shapes (R, d), (R,), (R,); returns them."""
    parts = expect_sequence(got, 3, what=f"{what}: the return value", hint="form")
    for name, part, w in zip(NAMES, parts, want, strict=True):
        if not isinstance(part, np.ndarray) or part.shape != w.shape or part.dtype != np.float64:
            expect_array(part, w, what=f"{what}: {name}", dtype=np.float64, hint="form")
    return tuple(parts)


def close(parts: tuple, want: tuple) -> bool:
    return all(np.allclose(p, w, **scaled_tolerance(w)) for p, w in zip(parts, want, strict=True))


def expect_layernorm(got: Any, want: tuple, what: str) -> None:
    """The form first, then each value."""
    parts = expect_layernorm_form(got, want, what)
    for name, part, w in zip(NAMES, parts, want, strict=True):
        expect_array(part, w, what=f"{what}: {name}", hint="form", **scaled_tolerance(w))


Case = tuple[np.ndarray, np.ndarray, np.ndarray, float, int]


def layernorms(student: Student, cases: list[Case], labels: list[str]) -> None:
    results = student.layernorm_blocked.each(cases)
    for case, label, got in zip(cases, labels, results, strict=True):
        expect_layernorm(got, layernorm(*case[:4]), label)


def merges(student: Student, pairs: list[tuple[np.ndarray, np.ndarray, str]]) -> None:
    """Each pair of data sets: their two states merged must be the state of both together."""
    results = student.welford_merge.each([(state_of(a), state_of(b)) for a, b, _ in pairs])
    for (a, b, label), got in zip(pairs, results, strict=True):
        expect_state(got, state_of(np.concatenate([a, b])), label)


def params(rng: np.random.Generator, d: int) -> tuple[np.ndarray, np.ndarray]:
    return rng.normal(size=d) + 1.0, rng.normal(size=d)


# --------------------------------------------------------------------------- the checks


@check("The merges from the statement", public=True, points=2, hint="form")
def merge_examples(student: Student) -> None:
    calls = [((2, 1.0, 2.0), (1, 4.0, 0.0)), ((1, 5.0, 0.0), (3, 1.0, 8.0)), (EMPTY, EMPTY)]
    wants = [(3, 2.0, 8.0), (4, 2.0, 20.0), EMPTY]
    assert wants[:2] == [state_of(np.array([0.0, 2.0, 4.0])), state_of(np.array([5.0, -1.0, 1.0, 3.0]))]
    labels = ["the first merge", "the second merge", "the merge of two empty states"]
    for got, want, label in zip(student.welford_merge.each(calls), wants, labels, strict=True):
        expect_state(got, want, label)


@check("The row from the statement: blocks of 2, the last one shorter", public=True, points=2, hint="counts")
def worked_example(student: Student) -> None:
    x = np.array([[1.0, 2.0, 3.0, 4.0, 10.0]])
    want = (np.array([[-3.0, -2.0, -1.0, 0.0, 6.0]]) / np.sqrt(10.0), np.array([4.0]), np.array([1 / np.sqrt(10.0)]))
    got = student.layernorm_blocked(x, np.ones(5), np.zeros(5), 0.0, 2)
    expect_layernorm(got, want, "layernorm_blocked of the row [1, 2, 3, 4, 10]")


@check("welford_merge returns (int, float, float), and layernorm_blocked three float64 arrays", hint="form")
def result_form(student: Student, rng: np.random.Generator) -> None:
    for got, label in zip(student.welford_merge.each([(EMPTY, EMPTY), ((3, 1.5, 2.0), (2, -0.5, 1.0))]),
                          ["two empty states", "two states of 3 and 2 numbers"], strict=True):  # fmt: skip
        count, mean, m2 = expect_sequence(got, 3, what=f"the merge of {label}")
        if not is_int(count):
            fail(f"the merge of {label}: the count should be an int, got {describe(count)}")
        for name, value in (("mean", mean), ("m2", m2)):
            if not is_float(value):
                fail(f"the merge of {label}: {name} should be a float (0.0, not 0), got {describe(value)}")
    x = rng.normal(size=(3, 7))
    parts = expect_sequence(student.layernorm_blocked(x, *params(rng, 7), 1e-5, 3), 3, what="the return value")
    for name, part, shape in zip(NAMES, parts, [(3, 7), (3,), (3,)], strict=True):
        if not isinstance(part, np.ndarray) or part.shape != shape or part.dtype != np.float64:
            fail(f"{name} for a (3, 7) input should be a float64 array of shape {shape}, got {describe(part)}")


@check("Merges of data sets of unequal sizes, far-apart means and single elements", hint="merge-m2")
def merge_data(student: Student, rng: np.random.Generator) -> None:
    pairs = [
        (rng.normal(size=5), rng.normal(size=3) + 2.0, "two sets of unequal sizes"),
        (rng.normal(size=1) * 3.0, rng.normal(size=7), "one number, then a set"),
        (rng.normal(size=9), rng.normal(size=2) - 4.0, "a set, then two numbers"),
        (rng.normal(size=12) * 0.5, rng.normal(size=12) * 2.0 + 1.0, "two sets of the same size"),
        (rng.normal(size=6) * 0.1 - 50.0, rng.normal(size=4) * 0.1 + 80.0, "far-apart means, small spreads"),
        (rng.normal(size=1), rng.normal(size=1) + 3.0, "two single numbers"),
        (rng.normal(size=300), rng.normal(size=3) + 5.0, "a large set, then a small one"),
        (rng.normal(size=4) + 1e6, rng.normal(size=11) + 1e6 + 1.0, "large means, a spread of one"),
    ]
    merges(student, pairs)


@check("Merges with an empty state, on either side", hint="merge-mean")
def merge_empty(student: Student, rng: np.random.Generator) -> None:
    none = np.empty(0)
    pairs = [
        (none, rng.normal(size=4) + 3.0, "the empty state, then a set"),
        (rng.normal(size=6) - 2.0, none, "a set, then the empty state"),
        (none, rng.normal(size=1) * 5.0, "the empty state, then one number"),
        (rng.normal(size=3) * 1e3, none, "a wide set, then the empty state"),
    ]
    merges(student, pairs)


@check("Random rows: block sizes from 1 to more than d, several values of eps", hint="counts")
def random_rows(student: Student, rng: np.random.Generator) -> None:
    shapes = [(4, 8, 3, 1e-5), (3, 10, 4, 0.1), (2, 16, 16, 1e-5), (5, 7, 10, 1.0), (3, 12, 1, 1e-3),
              (2, 9, 2, 0.0), (1, 20, 6, 0.5), (6, 5, 5, 1e-5), (2, 33, 8, 1e-2)]  # fmt: skip
    cases: list[Case] = []
    for R, d, block, eps in shapes:
        x = rng.normal(size=(R, d)) * rng.uniform(0.5, 3.0, size=(R, 1)) + rng.normal(size=(R, 1)) * 2.0
        cases.append((x, *params(rng, d), eps, block))
    labels = [f"random rows, case {k} of {len(shapes)}: a ({R}, {d}) input" for k, (R, d, _, _) in enumerate(shapes, 1)]
    layernorms(student, cases, labels)


@check("A shorter last block whose mean stands apart", hint="counts")
def short_last_block(student: Student, rng: np.random.Generator) -> None:
    cases: list[Case] = []
    for d, block in ((10, 4), (7, 3), (13, 6), (5, 4)):
        x = rng.normal(size=(2, d))
        x[:, d - d % block :] += 6.0  # the last, shorter block sits well above the rest
        cases.append((x, *params(rng, d), 1e-5, block))
    labels = [f"a shorter last block, case {k} of {len(cases)}" for k in range(1, len(cases) + 1)]
    layernorms(student, cases, labels)


@check("Rows whose mean is up to a million times their spread: the variance must not cancel", hint="one-pass")
def large_mean(student: Student, rng: np.random.Generator) -> None:
    # Each case twice: rows centred near 0 (a control), then the same spread far from 0. y and rstd do
    # not depend on a shift of the row, so an answer right on the control and wrong far from 0 has
    # lost its digits to cancellation.
    controls: list[Case] = []
    cases: list[Case] = []
    for d, block, spread in ((16, 4, 1.0), (24, 5, 0.01), (40, 8, 3.0), (9, 1, 1.0), (32, 32, 1.0)):
        gamma, beta = params(rng, d)
        centred = rng.normal(size=(3, d)) * spread
        offset = np.array([1e6, -6e5, 2e5])[:, None] * spread
        controls.append((centred, gamma, beta, 0.0, block))
        cases.append((offset + centred, gamma, beta, 0.0, block))
    results = student.layernorm_blocked.each(controls + cases)
    for k, (control, case) in enumerate(zip(controls, cases, strict=True), start=1):
        what = f"rows with a large mean, case {k} of {len(cases)}"
        want_control, want = layernorm(*control[:4]), layernorm(*case[:4])
        got_control, got = results[k - 1], results[len(controls) + k - 1]
        parts_control = expect_layernorm_form(got_control, want_control, f"{what}, the same rows centred near 0")
        parts = expect_layernorm_form(got, want, what)
        if close(parts_control, want_control) and not close(parts[2:], want[2:]):
            fail(f"{what}: rstd is right for the same rows centred near 0 but not here, where the mean is far "
                 "larger than the spread: the variance lost its digits to cancellation")  # fmt: skip
        expect_layernorm(got_control, want_control, f"{what}, the same rows centred near 0")
        expect_layernorm(got, want, what)


@check("Zero variance: a constant row, and rows of one element, with eps > 0", hint="eps")
def zero_variance(student: Student) -> None:
    cases: list[Case] = [
        (np.full((2, 4), 0.1), np.array([1.0, 2.0, -1.0, 0.5]), np.array([0.0, 1.0, 2.0, -3.0]), 1e-5, 3),
        (np.array([[3.7], [-2.0], [0.0]]), np.array([2.0]), np.array([0.25]), 0.5, 1),
        (np.array([[5.0], [1e3]]), np.array([1.5]), np.array([-1.0]), 1e-5, 4),
    ]
    labels = ["two constant rows", "rows of one element", "rows of one element, a block longer than the row"]
    layernorms(student, cases, labels)


@check("x, gamma and beta are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    x = rng.normal(size=(3, 6)) + 2.0
    gamma, beta = params(rng, 6)
    # The same arrays for both calls of one batch: a call that changes them changes what the second sees.
    layernorms(student, [(x, gamma, beta, 1e-5, 4), (x, gamma, beta, 1e-5, 4)],
               ["call 1 of 2 on the same arrays", "call 2 of 2 on the same arrays"])  # fmt: skip
