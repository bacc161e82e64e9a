"""Checks for "Activation Checkpointing: Segments, Peak and Recompute".

The expected values come from a simulation written here, event by event: each layer is given its
segment, the forward adds the bytes that stay live, the backward frees them (and re-adds a
checkpointed segment's activations while it is recomputed), and the peak is the largest live total
seen; the live total must end at zero. best_segments is the first of every segment count sorted by
(recompute, segments) among those that fit. A wrong answer is named by the grader, by comparing it
with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_integer, expect_sequence, fail

# --------------------------------------------------------------------------- independent simulation


def simulate(saved: list[int], boundary: int, flops: list[int], segments: int) -> tuple[int, int]:
    n = len(saved)
    size = n // segments
    segment_of = [min(i // size, segments - 1) for i in range(n)]  # the rest joins the last segment
    checkpointed = segments - 1  # segments 0 … segments − 2
    live, peak = 0, 0
    for _ in range(checkpointed):  # forward of the checkpointed segments: their input stays
        live += boundary
        peak = max(peak, live)
    for i in range(n):  # forward of the last segment: each layer keeps what it saves
        if segment_of[i] == checkpointed:
            live += saved[i]
            peak = max(peak, live)
    for i in reversed(range(n)):  # backward of the last segment frees as it goes
        if segment_of[i] == checkpointed:
            live -= saved[i]
    for k in reversed(range(checkpointed)):
        layers = [i for i in range(n) if segment_of[i] == k]
        live += sum(saved[i] for i in layers)  # recompute: all of the segment's activations at once
        peak = max(peak, live)
        live -= sum(saved[i] for i in layers) + boundary  # its backward frees them and its input
    assert live == 0
    recompute = sum(f for f, k in zip(flops, segment_of, strict=True) if k < checkpointed)
    return peak, recompute


def expected_best(saved: list[int], boundary: int, flops: list[int], budget: int) -> int:
    costs = [(simulate(saved, boundary, flops, s), s) for s in range(1, len(saved) + 1)]
    ranked = sorted((recompute, s) for (peak, recompute), s in costs if peak <= budget)
    return ranked[0][1] if ranked else -1


# --------------------------------------------------------------------------- comparing answers

Chain = tuple[list[int], int, list[int]]


def expect_cost(got: Any, want: tuple[int, int], what: str) -> None:
    peak, recompute = expect_sequence(got, 2, what=f"the result ({what})", hint="form")
    expect_integer(peak, want[0], what=f"peak_bytes ({what})", hint="form")
    expect_integer(recompute, want[1], what=f"recompute_flops ({what})", hint="form")


def run_costs(student: Student, chains: list[tuple[Chain, str]]) -> None:
    """Every segment count of every chain, in one crossing."""
    calls = [(saved, boundary, flops, s) for (saved, boundary, flops), _ in chains for s in range(1, len(saved) + 1)]
    labels = [f"{label}, {s} segment{'s' if s > 1 else ''}" for (saved, _, _), label in chains
              for s in range(1, len(saved) + 1)]  # fmt: skip
    for args, label, got in zip(calls, labels, student.checkpoint_cost.each(calls), strict=True):
        expect_cost(got, simulate(*args), label)


def run_best(student: Student, cases: list[tuple[Chain, int, str]]) -> None:
    calls = [(saved, boundary, flops, budget) for (saved, boundary, flops), budget, _ in cases]
    for (_, _, label), args, got in zip(cases, calls, student.best_segments.each(calls), strict=True):
        expect_integer(got, expected_best(*args), what=f"best_segments ({label})", hint="form")


def budgets_around(chain: Chain) -> list[tuple[int, str]]:
    """Every distinct peak of the chain, and one byte below it: the edges where the choice changes."""
    peaks = sorted({simulate(chain[0], chain[1], chain[2], s)[0] for s in range(1, len(chain[0]) + 1)})
    out = []
    for rank, peak in enumerate(peaks, start=1):
        out.append((peak, f"a budget equal to the peak ranked {rank} of {len(peaks)}"))
        out.append((peak - 1, f"one byte below the peak ranked {rank} of {len(peaks)}"))
    return out


# --------------------------------------------------------------------------- the checks

EXAMPLE: Chain = ([4] * 6, 1, [1] * 6)


@check("The worked example from the statement", public=True, points=2, hint="peak")
def worked_example(student: Student) -> None:
    saved, boundary, flops = EXAMPLE
    wants = [(24, 0), (13, 3), (10, 4), (15, 3), (12, 4), (9, 5)]
    results = student.checkpoint_cost.each([(saved, boundary, flops, s) for s in range(1, 7)])
    for s, got, want in zip(range(1, 7), results, wants, strict=True):
        expect_cost(got, want, f"six equal layers, {s} segment{'s' if s > 1 else ''}")
    for budget, want in ((12, 3), (13, 2), (9, 6), (8, -1)):
        got = student.best_segments(saved, boundary, flops, budget)
        expect_integer(got, want, what=f"best_segments with a budget of {budget}", hint="best")


@check("checkpoint_cost returns a tuple of two ints, best_segments an int", hint="form")
def forms(student: Student) -> None:
    got = student.checkpoint_cost([3, 5, 2, 7, 1], 2, [4, 1, 6, 2, 3], 2)
    if not isinstance(got, tuple):
        fail(f"checkpoint_cost should return a tuple (peak_bytes, recompute_flops), got {describe(got)}")
    expect_cost(got, simulate([3, 5, 2, 7, 1], 2, [4, 1, 6, 2, 3], 2), "a chain of five layers")
    best = student.best_segments([3, 5, 2, 7, 1], 2, [4, 1, 6, 2, 3], 14)
    expect_integer(best, expected_best([3, 5, 2, 7, 1], 2, [4, 1, 6, 2, 3], 14), what="best_segments, five layers")


@check("The last segment takes the rest when segments does not divide n", hint="layout")
def uneven_layout(student: Student) -> None:
    chains = [
        (([1, 2, 3, 4, 5, 6, 7], 1, [1, 2, 3, 4, 5, 6, 7]), "seven rising layers"),
        (([9, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1], 2, [5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]), "eleven layers, the first heavy"),
        (([2, 2, 2, 2, 2, 2, 2, 2, 20], 3, [1] * 9), "nine layers, the last heavy"),
        (([6, 1, 6, 1, 6, 1, 6, 1, 6, 1], 4, [2, 3] * 5), "ten alternating layers"),
    ]
    run_costs(student, chains)


@check("The peak at the end of the forward, or while a segment is recomputed", hint="peak")
def peak_moments(student: Student) -> None:
    chains = [
        (([30, 30, 1, 1, 1, 1], 1, [1] * 6), "heavy first layers: a recompute peaks"),
        (([1, 1, 1, 1, 30, 30], 1, [1] * 6), "heavy last layers: the end of the forward peaks"),
        (([1, 1, 1, 1, 1, 1, 1, 1], 50, [1] * 8), "a large boundary: the checkpointed inputs dominate"),
        (([2, 9, 9, 3, 3, 3, 1, 1], 4, [1] * 8), "heavy middle layers"),
        (([5, 5, 5, 12, 12, 1, 1, 1, 1], 6, [1] * 9), "the segment before the last is heavy"),
        (([0, 0, 0, 0, 7], 3, [1] * 5), "only the last layer saves anything"),
    ]
    run_costs(student, chains)


@check("Only the checkpointed segments are recomputed", hint="recompute")
def recompute_flops(student: Student) -> None:
    chains = [
        (([4] * 7, 1, [10, 20, 30, 40, 50, 60, 70]), "rising costs"),
        (([3, 1, 4, 1, 5, 9, 2, 6], 2, [100, 1, 1, 1, 1, 1, 1, 1000]), "costly first and last layers"),
        (([2] * 5, 0, [0, 0, 8, 0, 0]), "one costly layer, no boundary bytes"),
    ]
    run_costs(student, chains)


@check("One layer, one segment, and as many segments as layers", hint="layout")
def edges(student: Student) -> None:
    chains = [
        (([7], 3, [5]), "a single layer"),
        (([0, 0, 0], 0, [0, 0, 0]), "nothing saved and nothing to recompute"),
        (([5, 0, 5], 0, [1, 1, 1]), "no boundary bytes"),
        (([10**12, 3 * 10**12, 2 * 10**12, 10**12], 10**11, [10**15, 2 * 10**15, 10**15, 5]), "terabyte layers"),
    ]
    run_costs(student, chains)


@check("best_segments: the least recompute among the counts that fit, ties to fewer segments", hint="best")
def best_choice(student: Student) -> None:
    chains: list[tuple[Chain, str]] = [
        (([4] * 6, 1, [1] * 6), "six equal layers"),
        (([3, 8, 2, 8, 3, 1, 1, 6], 2, [2, 5, 1, 5, 2, 1, 1, 3]), "eight unequal layers"),
        (([5] * 9, 2, [1] * 9), "nine equal layers"),
        (([6, 2, 7, 1, 8, 2, 9], 3, [3, 1, 4, 1, 5, 9, 2]), "seven unequal layers"),
        (([2] * 4, 0, [0] * 4), "free recomputes: every count ties"),
    ]
    cases = [(chain, budget, f"{label}, {where}") for chain, label in chains for budget, where in budgets_around(chain)]
    run_best(student, cases)


@check("best_segments: -1 when nothing fits, 1 when everything does", hint="best")
def best_extremes(student: Student) -> None:
    cases = [
        (([4] * 6, 1, [1] * 6), 0, "no memory"),
        (([4] * 6, 1, [1] * 6), 10**6, "room for everything"),
        (([7], 3, [5]), 6, "a single layer that does not fit"),
        (([7], 3, [5]), 7, "a single layer that fits exactly"),
        (([1, 1, 1], 100, [1, 1, 1]), 3, "no checkpoint helps, one segment fits exactly"),
    ]
    run_best(student, cases)


@check("Random chains of 1 to 12 layers", hint="peak")
def random_chains(student: Student, rng: np.random.Generator) -> None:
    chains: list[tuple[Chain, str]] = []
    for k in range(1, 16):
        n = int(rng.integers(1, 13))
        saved = [int(x) for x in rng.integers(0, 20, size=n)]
        flops = [int(x) for x in rng.integers(0, 10, size=n)]
        chains.append(((saved, int(rng.integers(0, 8)), flops), f"random chain {k} of 15"))
    run_costs(student, chains)
    cases = []
    for chain, label in chains:
        peaks = [simulate(*chain, s)[0] for s in range(1, len(chain[0]) + 1)]
        cases.append((chain, int(rng.integers(min(peaks) - 2, max(peaks) + 2)), label))
    run_best(student, cases)


@check("saved and flops are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    saved, flops = [5, 1, 4, 2, 8, 3, 6], [2, 7, 1, 8, 2, 8, 1]
    # The same lists for every call of one crossing: a call that changes them changes what the next sees.
    calls = [(saved, 2, flops, s) for s in (3, 2, 3)]
    for s, got in zip((3, 2, 3), student.checkpoint_cost.each(calls), strict=True):
        expect_cost(got, simulate(saved, 2, flops, s), f"{s} segments, on lists used by the calls before")
    budgets = (20, 14, 20)
    for budget, got in zip(budgets, student.best_segments.each([(saved, 2, flops, b) for b in budgets]), strict=True):
        expect_integer(got, expected_best(saved, 2, flops, budget), what="best_segments, on lists used before")
