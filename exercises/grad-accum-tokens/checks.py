"""Checks for "Token-Weighted Gradient Accumulation".

The expected values are computed here by another route than a solution's: each scale as an exact
fraction W·n/N rounded once to a float, and the expected gradient as the token mean Σ n·g / N over
the flat list of non-empty micro-batches, with no ranks, scales or average in between. A wrong
answer is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_float, fail, scaled_tolerance

# --------------------------------------------------------------------------- independent reference


def expected_scales(n_tokens: list[list[int]]) -> list[list[float]]:
    """W·n/N as exact fractions, each rounded once; 0.0 everywhere when there are no tokens."""
    W = len(n_tokens)
    N = sum(int(n) for row in n_tokens for n in row)
    return [[float(Fraction(W * int(n), N)) if N else 0.0 for n in row] for row in n_tokens]


def expected_grad(micro_grads: list[list[np.ndarray]], n_tokens: list[list[int]]) -> np.ndarray:
    """The gradient of the global token mean: Σ n·g over the non-empty micro-batches, divided by N."""
    pairs = [(int(n), g) for grads, counts in zip(micro_grads, n_tokens, strict=True)
             for g, n in zip(grads, counts, strict=True) if n]  # fmt: skip
    P = len(micro_grads[0][0])
    if not pairs:
        return np.zeros(P)
    N = sum(n for n, _ in pairs)
    weights = np.array([n for n, _ in pairs], dtype=np.float64)
    return weights @ np.stack([g for _, g in pairs]) / N


def make_grads(rng: np.random.Generator, n_tokens: list[list[int]], P: int, scale: float = 1.0) -> list:
    """One gradient per micro-batch: random, or all NaN where the micro-batch has no tokens."""
    return [[np.full(P, np.nan) if n == 0 else rng.normal(size=P) * scale for n in row] for row in n_tokens]


# --------------------------------------------------------------------------- comparing answers


def expect_scales(got: Any, want: list[list[float]], case: str) -> None:
    """A list per rank, a float per micro-batch (the form first, for every rank), then each value."""
    if type(got) is not list or len(got) != len(want):
        fail(f"the scales ({case}) should be a list of {len(want)} lists, one per rank, got {describe(got)}",
             hint="form")  # fmt: skip
    for r, (row, wanted) in enumerate(zip(got, want, strict=True)):
        if type(row) is not list or len(row) != len(wanted):
            fail(f"scales[{r}] ({case}) should be a list of {len(wanted)} floats, one per micro-batch of rank {r}, "
                 f"got {describe(row)}", hint="form")  # fmt: skip
        for j, value in enumerate(row):
            if isinstance(value, bool) or not isinstance(value, (float, np.floating)):
                fail(f"scales[{r}][{j}] ({case}) should be a float, got {describe(value)}", hint="form")
    for r, (row, wanted) in enumerate(zip(got, want, strict=True)):
        for j, (value, w) in enumerate(zip(row, wanted, strict=True)):
            expect_float(value, w, what=f"scales[{r}][{j}] ({case})", rtol=1e-9, atol=0.0, hint="form")


def expect_grad(got: Any, want: np.ndarray, what: str) -> None:
    if isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype != np.float64:
        fail(f"{what} should be a float64 array, got dtype {got.dtype}", hint="form")
    expect_array(got, want, what=what, hint="form", **scaled_tolerance(want))


Case = tuple[list[list[np.ndarray]], list[list[int]], str]


def run_cases(student: Student, cases: list[Case]) -> None:
    """Scales and gradients of every case, two crossings in all."""
    scales = student.loss_scales.each([(n_tokens,) for _, n_tokens, _ in cases])
    for (_, n_tokens, label), got in zip(cases, scales, strict=True):
        expect_scales(got, expected_scales(n_tokens), label)
    grads = student.accumulate.each([(micro_grads, n_tokens) for micro_grads, n_tokens, _ in cases])
    for (micro_grads, n_tokens, label), got in zip(cases, grads, strict=True):
        expect_grad(got, expected_grad(micro_grads, n_tokens), f"the gradient ({label})")


# --------------------------------------------------------------------------- the checks

EXAMPLE_TOKENS = [[3, 1], [0, 4]]
EXAMPLE_GRADS = [[np.array([1.0]), np.array([5.0])], [np.array([np.nan]), np.array([2.0])]]


@check("The worked example from the statement", public=True, points=2, hint="token-weights")
def worked_example(student: Student) -> None:
    expect_scales(student.loss_scales(EXAMPLE_TOKENS), [[0.75, 0.25], [0.0, 1.0]], "the statement's example")
    expect_grad(student.accumulate(EXAMPLE_GRADS, EXAMPLE_TOKENS), np.array([2.0]), "the accumulated gradient")


@check("Scales are floats nested like n_tokens, and the gradient a float64 array of shape (P,)", hint="form")
def forms(student: Student, rng: np.random.Generator) -> None:
    n_tokens = [[5], [2, 7, 1], [4, 4]]
    micro_grads = make_grads(rng, n_tokens, 6)
    what = "3 ranks with 1, 3 and 2 micro-batches"
    expect_scales(student.loss_scales(n_tokens), expected_scales(n_tokens), what)
    expect_grad(student.accumulate(micro_grads, n_tokens), expected_grad(micro_grads, n_tokens), "the gradient (P = 6)")


@check("Ranks with different token counts and different numbers of micro-batches", hint="global-n")
def unequal_ranks(student: Student, rng: np.random.Generator) -> None:
    layouts = [
        ([[10, 2], [3]], 3, "2 ranks, one holding four times the tokens of the other"),
        ([[1, 1, 1, 1], [40]], 2, "4 short micro-batches on one rank, 1 long one on the other"),
        ([[7, 9, 2], [5, 5, 5], [30, 1, 6]], 4, "3 ranks of 3 micro-batches with unequal totals"),
        ([[12], [3, 4], [1, 1, 1, 1, 1], [20, 8]], 5, "4 ranks with 1 to 5 micro-batches"),
        ([[2, 300], [150, 150]], 2, "equal totals, unequal micro-batches"),
        ([[6, 6, 6]], 3, "a single rank of equal micro-batches"),
    ]
    run_cases(student, [(make_grads(rng, n, P), n, label) for n, P, label in layouts])


@check("Micro-batches without tokens (NaN gradients) are skipped", hint="skip-empty")
def empty_micro_batches(student: Student, rng: np.random.Generator) -> None:
    layouts = [
        ([[0, 5], [3, 0]], 3, "an empty micro-batch on each rank"),
        ([[0, 0], [4, 9]], 2, "a rank whose micro-batches are all empty"),
        ([[0], [1], [0, 0, 2]], 4, "empty micro-batches next to one-token ones"),
        ([[8, 0, 0, 3], [0, 1, 0]], 1, "many empty micro-batches, P = 1"),
        ([[0, 1]], 5, "one rank, an empty micro-batch first"),
    ]
    run_cases(student, [(make_grads(rng, n, P), n, label) for n, P, label in layouts])


@check("A step without any target tokens gives zero scales and a zero gradient", hint="no-tokens")
def no_tokens(student: Student) -> None:
    layouts = [([[0]], 1, "1 rank, 1 empty micro-batch"), ([[0, 0], [0]], 3, "2 ranks, 3 empty micro-batches"),
               ([[0], [0], [0], [0, 0, 0]], 2, "4 ranks, all empty")]  # fmt: skip
    cases = [([[np.full(P, np.nan) for _ in row] for row in n], n, label) for n, P, label in layouts]
    run_cases(student, cases)


@check("Gradients near 10³ and token counts in the hundreds of thousands", hint="token-weights")
def large_values(student: Student, rng: np.random.Generator) -> None:
    layouts = [
        ([[250_000, 3, 131_072], [77_777], [1, 999_999]], 4, "3 ranks, counts from 1 to a million"),
        ([[65_536, 65_535], [2, 0, 100_000], [40_000], [1]], 3, "4 ranks, counts up to 10⁵"),
    ]
    cases = [(make_grads(rng, n, P, scale=400.0), n, label) for n, P, label in layouts]
    run_cases(student, cases)


@check("Random steps: 1 to 6 ranks, 1 to 5 micro-batches each, some empty", hint="token-weights")
def random_steps(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k in range(1, 31):
        W = int(rng.integers(1, 7))
        n_tokens = [[int(n) if rng.random() > 0.2 else 0 for n in rng.integers(1, 60, size=int(rng.integers(1, 6)))]
                    for _ in range(W)]  # fmt: skip
        micro_grads = make_grads(rng, n_tokens, int(rng.integers(1, 8)), scale=10.0)
        cases.append((micro_grads, n_tokens, f"random step {k} of 30"))
    run_cases(student, cases)


@check("micro_grads and n_tokens are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    n_tokens = [[6, 2, 0], [3, 9]]
    micro_grads = make_grads(rng, n_tokens, 4)
    want = expected_grad(micro_grads, n_tokens)
    # The same lists and arrays for both calls of one crossing: a first call that changes them
    # changes what the second one sees.
    first, second = student.accumulate.each([(micro_grads, n_tokens), (micro_grads, n_tokens)])
    expect_grad(first, want, "the gradient of the first call")
    expect_grad(second, want, "the gradient of a second call on the same lists and arrays")
    first, second = student.loss_scales.each([(n_tokens,), (n_tokens,)])
    expect_scales(first, expected_scales(n_tokens), "the first call")
    expect_scales(second, expected_scales(n_tokens), "a second call on the same list")
