"""Checks for "Gradient Buckets for DDP".

The expected buckets are computed here by another route than a solution's walk: the gradient order
is written out once, and each bucket is cut at the first running total (prefix sums and a binary
search) that reaches its limit. A wrong answer is named by the grader, by comparing it with the
exercise's mutants on the same calls.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import accumulate

import numpy as np

from grader.checks import Student, check, expect_ints

# --------------------------------------------------------------------------- independent expectation


def expected_buckets(param_bytes: list[int], cap: int, first_cap: int) -> list[list[int]]:
    """Cut the gradient order into buckets, each ending where its running total first reaches its limit."""
    order = list(range(len(param_bytes)))[::-1]
    buckets: list[list[int]] = []
    start = 0
    for _ in range(len(order)):
        if start == len(order):
            break
        limit = cap if buckets else first_cap
        totals = list(accumulate(param_bytes[i] for i in order[start:]))
        end = min(bisect_left(totals, limit), len(totals) - 1)  # the first total >= limit, or the last one
        buckets.append(order[start : start + end + 1])
        start += end + 1
    return buckets


def run_cases(student: Student, cases: list[tuple[tuple, str]]) -> None:
    """Every case in one crossing, each compared exactly with its expected buckets."""
    results = student.assign_buckets.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        expect_ints(got, expected_buckets(*args), what=f"the buckets ({what})", hint="form")


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2, hint="walk")
def worked_example(student: Student) -> None:
    got = student.assign_buckets([4, 4, 8, 2, 6, 1], 10, 5)
    expect_ints(got, [[5, 4], [3, 2], [1, 0]], what="the buckets of the worked example", hint="form")


@check("A parameter bigger than its limit, and no parameters at all", public=True, hint="add-first")
def worked_edges(student: Student) -> None:
    big, empty = student.assign_buckets.each([([3, 12, 5], 10, 4), ([], 10, 4)])
    expect_ints(big, [[2], [1], [0]], what="the buckets with a parameter bigger than the limit", hint="form")
    expect_ints(empty, [], what="the buckets of no parameters", hint="form")


@check("Random models: many sizes and limits", hint="walk")
def random_models(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k in range(40):
        n = int(rng.integers(1, 25))
        sizes = [int(b) for b in rng.integers(1, int(rng.integers(2, 40)), size=n)]
        cap = int(rng.integers(1, 60))
        first_cap = int(rng.integers(1, 60))
        cases.append(((sizes, cap, first_cap), f"random model {k + 1} of 40, {n} parameters"))
    run_cases(student, cases)


@check("Buckets that reach their limit exactly are closed", hint="reach")
def exact_limits(student: Student) -> None:
    cases = [
        (([5, 5, 5, 5], 10, 10), "every bucket exactly at its limit"),
        (([3, 3, 4, 2, 2], 6, 4), "the first bucket exactly at first_cap, the next exactly at cap"),
        (([1, 2, 3, 4, 1, 2, 3, 4], 6, 7), "limits reached exactly in the middle"),
        (([7, 7, 7], 7, 7), "each parameter exactly one limit"),
        (([2, 1, 1, 1, 1, 1, 3, 6], 5, 6), "a last parameter exactly at first_cap"),
    ]
    run_cases(student, cases)


@check("first_cap governs only the first bucket, smaller or larger than cap", hint="limits")
def first_bucket_limit(student: Student) -> None:
    sizes = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9]
    cases = [
        ((sizes, 20, 2), "a small first bucket"),
        ((sizes, 8, 30), "a first bucket larger than the others"),
        ((sizes, 12, 12), "both limits equal"),
        (([1] * 12, 4, 1), "one-byte parameters, first_cap 1"),
        (([1] * 12, 2, 5), "one-byte parameters, first_cap above cap"),
        (([6, 2, 2, 2, 2, 2, 2], 3, 9), "a first bucket that never fills"),
    ]
    run_cases(student, cases)


@check("Parameters bigger than the limit close their bucket", hint="add-first")
def oversized_parameters(student: Student) -> None:
    cases = [
        (([100], 10, 5), "one parameter, far above both limits"),
        (([2, 50, 1, 1, 40], 10, 10), "big parameters after small ones"),
        (([30, 1, 30, 1, 30], 8, 16), "big and small alternating"),
        (([4, 3, 2, 1, 25], 6, 5), "the first gradient far above first_cap"),
        (([9, 9, 9, 9], 5, 20), "every parameter above cap"),
    ]
    run_cases(student, cases)


@check("The last, partly filled bucket is kept", hint="leftover")
def leftover_bucket(student: Student) -> None:
    cases = [
        (([1, 1, 1], 10, 10), "one bucket that never fills"),
        (([1, 2, 3, 4, 5, 6], 8, 6), "a leftover of several parameters"),
        (([3, 10, 10, 10], 10, 10), "a leftover of one parameter"),
        (([2], 3, 3), "a single small parameter"),
    ]
    run_cases(student, cases)


@check("A transformer in fp32 with PyTorch's default limits (25 MiB, first 1 MiB)", hint="walk")
def transformer_defaults(student: Student) -> None:
    d, vocab, layers = 1024, 32000, 6
    sizes = [4 * vocab * d]  # the embedding
    for _ in range(layers):
        # LayerNorm weight and bias, QKV, output projection, LayerNorm, MLP up, MLP down
        sizes += [4 * d, 4 * d, 4 * 3 * d * d, 4 * d * d, 4 * d, 4 * d, 4 * 4 * d * d, 4 * 4 * d * d]
    sizes += [4 * d, 4 * d]  # the final LayerNorm
    cases = [
        ((sizes, 25 * 2**20, 2**20), "a 6-layer transformer, default limits"),
        ((sizes, 8 * 2**20, 2**20), "a 6-layer transformer, 8 MiB buckets"),
        ((sizes, 2**30, 2**20), "a 6-layer transformer, one huge bucket after the first"),
    ]
    run_cases(student, cases)


@check("param_bytes is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    sizes = [4, 1, 3, 2, 5, 2, 1]
    # The same list for both calls of one crossing: a call that changes it changes the second answer.
    cases = [((sizes, 5, 3), "call 1 of 2 with the same list"), ((sizes, 5, 3), "call 2 of 2 with the same list")]
    run_cases(student, cases)
