"""Checks for "The Roofline".

The expected values are computed here by another route than a solution's: the cost of a matmul by
counting the elements of each operand from its shape and the operations of one output, and the
roofline's times as exact fractions (the verdict compared exactly, then the larger time rounded once
to a float). A wrong answer is named by the grader, by comparing it with the exercise's mutants on
the same calls.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_float, expect_integer, expect_sequence, fail, values_shown

LABELS = ("memory", "compute")
H100 = (989e12, 3.35e12)  # FLOP/s and bytes/s, as in the statement

# --------------------------------------------------------------------------- independent expected values


def expected_cost(m: Any, n: Any, k: Any, dtype_bytes: Any) -> tuple[int, int]:
    """Operations of one output (k multiplies, k adds) times the outputs; elements of A, B and C times their size."""
    m, n, k, dtype_bytes = int(m), int(n), int(k), int(dtype_bytes)
    per_output = k + k
    elements = sum(math.prod(shape) for shape in ((m, k), (k, n), (m, n)))
    return m * n * per_output, elements * dtype_bytes


def exact(value: Any) -> Fraction:
    return Fraction(int(value)) if isinstance(value, (int, np.integer)) else Fraction(float(value))


def expected_verdict(flops: Any, nbytes: Any, peak_flops: Any, bandwidth: Any) -> tuple[float, str]:
    """The two times as exact fractions: the verdict from comparing them exactly, the larger one rounded once."""
    compute = exact(flops) / exact(peak_flops)
    memory = exact(nbytes) / exact(bandwidth)
    if memory > compute:
        return float(memory), "memory"
    return float(compute), "compute"


def away_from_tie(flops: Any, nbytes: Any, peak_flops: Any, bandwidth: Any) -> bool:
    """Whether the two times differ by far more than rounding (the checks hold no near ties)."""
    compute = exact(flops) / exact(peak_flops)
    memory = exact(nbytes) / exact(bandwidth)
    return abs(memory - compute) > Fraction(1, 10**6) * max(memory, compute)


# --------------------------------------------------------------------------- comparing answers


def expect_cost(got: Any, want: tuple[int, int], what: str) -> None:
    flops, nbytes = expect_sequence(got, 2, what=f"the result ({what})", hint="cost-form")
    expect_integer(flops, want[0], what=f"flops ({what})", hint="cost-form")
    expect_integer(nbytes, want[1], what=f"nbytes ({what})", hint="cost-form")


def expect_verdict(got: Any, want: tuple[float, str], what: str) -> None:
    seconds, bound = expect_sequence(got, 2, what=f"the result ({what})", hint="roofline-form")
    if not isinstance(bound, str) or bound not in LABELS:
        kind = "another str" if isinstance(bound, str) else describe(bound)
        fail(f'bound ({what}) should be the str "memory" or "compute", got {kind}', hint="roofline-form")
    expect_float(seconds, want[0], what=f"seconds ({what})", rtol=1e-9, atol=0.0, hint="roofline-form")
    if bound != want[1]:
        shown = f"expected {want[1]!r}, got {bound!r}" if values_shown() else "not the expected label"
        # A wrong label: the grader names the mistake from the answers, no hint is guessed here.
        fail(f"bound ({what}): {shown}", hint=None, expected=want[1], got=bound)


def run_costs(student: Student, cases: list[tuple[tuple[Any, ...], str]]) -> None:
    results = student.matmul_cost.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        expect_cost(got, expected_cost(*args), what)


def run_verdicts(student: Student, cases: list[tuple[tuple[Any, ...], str]]) -> None:
    results = student.roofline.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        expect_verdict(got, expected_verdict(*args), what)


# --------------------------------------------------------------------------- the checks


@check("matmul_cost on the statement's decode and prefill layers", public=True, points=2, hint="cost-form")
def worked_example_cost(student: Student) -> None:
    decode, prefill = student.matmul_cost.each([(1, 4096, 4096, 2), (4096, 4096, 4096, 2)])
    expect_cost(decode, (33_554_432, 33_570_816), "decode, m = 1")
    expect_cost(prefill, (137_438_953_472, 100_663_296), "prefill, m = 4096")


@check("roofline on the statement's decode and prefill layers", public=True, points=2, hint="roofline-form")
def worked_example_roofline(student: Student) -> None:
    decode, prefill = student.roofline.each([
        (33_554_432, 33_570_816, *H100),
        (137_438_953_472, 100_663_296, *H100),
    ])  # fmt: skip
    expect_verdict(decode, (33_570_816 / 3.35e12, "memory"), "decode, m = 1")
    expect_verdict(prefill, (137_438_953_472 / 989e12, "compute"), "prefill, m = 4096")


@check("roofline: an exact tie is compute-bound", public=True, hint="bound")
def tie_is_compute(student: Student) -> None:
    expect_verdict(student.roofline(2000, 1000, 2.0, 1.0), (1000.0, "compute"), "times of exactly 1000 s each")


@check("matmul_cost for many shapes and element sizes", hint="cost-form")
def cost_shapes(student: Student, rng: np.random.Generator) -> None:
    cases: list[tuple[tuple[Any, ...], str]] = [
        ((1, 1, 1, 1), "a 1 × 1 product"),
        ((1, 11008, 4096, 2), "one row (decode)"),
        ((37, 1, 53, 4), "one column"),
        ((29, 31, 1, 2), "k = 1 (an outer product)"),
        ((np.int64(96), np.int64(40), np.int32(72), np.int64(8)), "numpy integers"),
    ]
    for n in range(1, 16):
        m, cols, k = (int(v) for v in rng.choice(np.arange(2, 3000), size=3, replace=False))
        dtype_bytes = int(rng.choice([1, 2, 4, 8]))
        cases.append(((m, cols, k, dtype_bytes), f"random shape {n} of 15"))
    run_costs(student, cases)


@check("matmul_cost is exact past 2^53", hint="cost-form")
def cost_exact_large(student: Student) -> None:
    cases: list[tuple[tuple[Any, ...], str]] = [
        ((1_500_000_001, 1, 1_000_000_007, 2), "a tall product, near 2^62"),
        ((2**20 + 1, 2**20 + 3, 2**20 + 5, 1), "three odd sizes past 2^20"),
        ((np.int64(3_037_000_493), np.int64(1), np.int64(700_000_001), np.int64(1)), "numpy integers near 2^62"),
        ((65_537, 1_000_003, 9_973, 4), "a wide product past 2^53"),
    ]
    run_costs(student, cases)


@check("roofline on both sides of the roof, with ints, floats and numpy scalars", hint="roofline-form")
def roofline_cases(student: Student, rng: np.random.Generator) -> None:
    cases: list[tuple[tuple[Any, ...], str]] = [
        ((0, 1_000_000, 1e12, 1e11), "no FLOPs at all"),
        ((0.0, 0.5, 3.0, 7.0), "no FLOPs, float arguments"),
    ]
    kinds = ("ints and floats", "all ints", "numpy scalars", "all floats")
    for n in range(24):
        peak = float(rng.uniform(1e12, 2e15))
        bandwidth = float(rng.uniform(1e11, 1e13))
        seconds = float(rng.uniform(1e-6, 1e-2))
        ratio = float(np.exp(rng.uniform(0.05, 2.5)))  # the slower side over the faster one
        slow_memory = n % 2 == 0
        t_c, t_m = (seconds / ratio, seconds) if slow_memory else (seconds, seconds / ratio)
        flops, nbytes = max(1, round(t_c * peak)), max(1, round(t_m * bandwidth))
        kind = kinds[n % 4]
        if kind == "all ints":
            args: tuple[Any, ...] = (flops, nbytes, round(peak), round(bandwidth))
        elif kind == "numpy scalars":
            args = (np.int64(flops), np.int64(nbytes), np.float64(peak), np.float64(bandwidth))
        elif kind == "all floats":
            args = (float(flops), float(nbytes), peak, bandwidth)
        else:
            args = (flops, nbytes, peak, bandwidth)
        side = "memory" if slow_memory else "compute"
        cases.append((args, f"random case {n + 1} of 24 ({kind}, the {side} side slower)"))
    assert all(away_from_tie(*args) for args, _ in cases)
    run_verdicts(student, cases)


@check("roofline: exact ties are compute-bound, and clear wins beside them are not", hint="bound")
def roofline_ties(student: Student) -> None:
    cases: list[tuple[tuple[Any, ...], str]] = [
        ((6, 3, 2, 1), "all ints"),
        ((1e12, 5e11, 2e12, 1e12), "half a second each"),
        ((0.75, 1.5, 1.0, 2.0), "fractional floats"),
        ((2**40, 2**38, 2.0**10, 2.0**8), "powers of two"),
        ((np.int64(3 * 2**50), np.int64(2**50), np.int64(3), np.int64(1)), "numpy integers"),
        ((np.float64(989e12), np.float64(3.35e12), np.float64(989e12), np.float64(3.35e12)), "one second each"),
        ((6, 4, 2, 1), "all ints, the memory side slower"),
        ((8, 3, 2, 1), "all ints, the compute side slower"),
        ((1e12, 6e11, 2e12, 1e12), "floats, the memory side slower"),
    ]
    run_verdicts(student, cases)


@check("From decode to prefill: one layer for batches of 1 to 8192 tokens", hint="weights-once")
def decode_to_prefill(student: Student) -> None:
    layers = [(4096, 4096), (4096, 14336)]  # (k, n): a square projection and an MLP's up-projection
    shapes = [(2**p, n, k, 2) for k, n in layers for p in range(14)]
    labels = [f"layer {i + 1} of 2, batch size {p + 1} of 14" for i in range(2) for p in range(14)]
    costs = student.matmul_cost.each(shapes)
    for shape, label, got in zip(shapes, labels, costs, strict=True):
        expect_cost(got, expected_cost(*shape), label)
    cases = [((*expected_cost(*shape), *H100), label) for shape, label in zip(shapes, labels, strict=True)]
    assert all(away_from_tie(*args) for args, _ in cases)
    run_verdicts(student, cases)
