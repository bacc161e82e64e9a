"""Checks for "Radix Select".

The expected values are computed here by another route than a solution's: each key comes from the
float's bits with Python integer arithmetic (struct, then 2^32 − 1 − bits for a negative float and
bits + 2^31 for any other); the k-th largest key comes from sorting all the keys; and each pass is
read off that key in closed form: its digit is the key's digit, and the candidates kept are the keys
that share the key's leading digits so far. No histogram is walked. The value is compared exactly,
its sign included (expect_float cannot see the sign of a zero: np.signbit does). A wrong answer is
named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from grader.checks import (
    Student,
    check,
    compared_as,
    describe,
    expect_array,
    expect_float,
    expect_ints,
    expect_sequence,
    fail,
)

# --------------------------------------------------------------------------- independent expected values


def bits_of(value: float) -> int:
    return struct.unpack("<I", struct.pack("<f", value))[0]


def key_of(value: float) -> int:
    bits = bits_of(value)
    return 0xFFFFFFFF - bits if bits >= 2**31 else bits + 2**31


def value_of(key: int) -> float:
    bits = key - 2**31 if key >= 2**31 else 0xFFFFFFFF - key
    return struct.unpack("<f", struct.pack("<I", bits))[0]


def expected_keys(x: np.ndarray) -> np.ndarray:
    return np.array([key_of(float(v)) for v in x], dtype=np.uint32)


def expected_select(x: np.ndarray, k: int, radix_bits: int) -> tuple[float, list[list[int]]]:
    keys = sorted((key_of(float(v)) for v in x), reverse=True)
    target = keys[int(k) - 1]
    passes = []
    for p in range(32 // int(radix_bits)):
        shift = 32 - int(radix_bits) * (p + 1)
        digit = (target >> shift) % 2 ** int(radix_bits)
        kept = sum(1 for key in keys if key >> shift == target >> shift)
        passes.append([digit, kept])
    return value_of(target), passes


# --------------------------------------------------------------------------- comparing answers


def expect_value(got: Any, want: float, what: str) -> None:
    """Exactly the float32 value (distinct float32 values differ by far more than 1e-9), and the sign of a zero."""
    expect_float(got, want, what=what, rtol=1e-9, atol=0.0, hint="form")
    if want == 0 and bool(np.signbit(got)) != bool(np.signbit(want)):
        if np.signbit(want):
            fail(f"{what} should be negative zero (the selected key, 0x7FFFFFFF, is that of negative zero), got "
                 "positive zero: the sign of a zero counts", hint="signed-zero", expected=want, got=got)  # fmt: skip
        fail(f"{what} should be positive zero (the selected key, 0x80000000, is that of positive zero), got "
             "negative zero: the sign of a zero counts", hint="signed-zero", expected=want, got=got)  # fmt: skip


def expect_passes(got: Any, want: list[list[int]], what: str) -> None:
    """A list of (digit, kept) pairs, tuples or lists of two ints; then the pairs, exactly."""
    if type(got) is not list:
        fail(f"{what} should be a list of (digit, kept) pairs, got {describe(got)}", hint="form", got=got)
    for p, pair in enumerate(got):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            fail(f"{what}: pass {p} should be a pair (digit, kept), got {describe(pair)}", hint="form", got=got)
    expect_ints([list(pair) for pair in got], want, what=what)


def expect_select(got: Any, want: tuple[float, list[list[int]]], what: str) -> None:
    value, passes = expect_sequence(got, 2, what=f"the result ({what})", hint="form")
    expect_value(value, want[0], f"the value ({what})")
    expect_passes(passes, want[1], f"passes ({what})")


@compared_as("radix_select")
def with_sign_of_zero(answer: Any) -> Any:
    """What naming a mistake compares: the answer, and whether its value is a negative zero, which the checks
    judge too (floats are compared by closeness there, and -0.0 is as close to +0.0 as can be). Only a zero's
    sign: a nan's does not survive the way back from the sandbox."""
    value, passes = answer
    return value, bool(value == 0 and np.signbit(value)), passes


Case = tuple[np.ndarray, int, int]  # x, k, radix_bits


def run_select(student: Student, cases: list[tuple[Case, str]]) -> None:
    """Every case in one crossing, each compared with its expected value and passes."""
    results = student.radix_select.each([case for case, _ in cases])
    for (case, what), got in zip(cases, results, strict=True):
        expect_select(got, expected_select(*case), what)


def run_keys(student: Student, arrays: list[tuple[np.ndarray, str]]) -> None:
    results = student.ordered_keys.each([(x,) for x, _ in arrays])
    for (x, what), got in zip(arrays, results, strict=True):
        expect_array(got, expected_keys(x), what=f"the keys ({what})", dtype=np.uint32, exact=True, hint="form")


def f32(values: Any) -> np.ndarray:
    return np.array(values, dtype=np.float32)


# A bit of everything: zeros of both signs, infinities, subnormals, the extremes of float32.
TINY = float(np.finfo(np.float32).smallest_subnormal)
NORMAL = float(np.finfo(np.float32).tiny)  # the smallest normal float32
BIG = float(np.finfo(np.float32).max)
SPECIAL = f32([0.0, -0.0, np.inf, -np.inf, TINY, -TINY, 3 * TINY, -5 * TINY, BIG, -BIG, 1.0, -1.0,
               NORMAL, -NORMAL, 2.5, -2.5, 1e-30, -1e30])  # fmt: skip


def mixed(rng: np.random.Generator, n: int) -> np.ndarray:
    """Floats of both signs over many magnitudes."""
    return f32(rng.normal(size=n) * 10.0 ** rng.integers(-6, 7, size=n))


# --------------------------------------------------------------------------- the checks

EXAMPLE = f32([1.5, -2.0, 0.0, -0.0, 3.0])


@check("ordered_keys on the statement's example", public=True, hint="key-flip")
def worked_example_keys(student: Student) -> None:
    want = np.array([0xBFC00000, 0x3FFFFFFF, 0x80000000, 0x7FFFFFFF, 0xC0400000], dtype=np.uint32)
    expect_array(student.ordered_keys(EXAMPLE), want, what="ordered_keys([1.5, -2.0, 0.0, -0.0, 3.0])",
                 dtype=np.uint32, exact=True, hint="form")  # fmt: skip


@check("radix_select on the statement's examples", public=True, points=2, hint="walk")
def worked_example_select(student: Student) -> None:
    cases = [
        ((EXAMPLE, 2, 8), (1.5, [[0xBF, 1], [0xC0, 1], [0, 1], [0, 1]]), "the 2nd largest of five, radix 8"),
        ((EXAMPLE, 4, 8), (-0.0, [[0x7F, 1], [0xFF, 1], [0xFF, 1], [0xFF, 1]]), "the 4th largest of five, radix 8"),
        ((f32([2, 2, 1]), 2, 4), (2.0, [[12, 2]] + [[0, 2]] * 7), "a tie, radix 4"),
        ((f32([1.0, 1.5, 1.25]), 2, 8), (1.25, [[0xBF, 3], [0xA0, 1], [0, 1], [0, 1]]), "three values, radix 8"),
    ]
    results = student.radix_select.each([args for args, _, _ in cases])
    for (_, want, what), got in zip(cases, results, strict=True):
        expect_select(got, want, what)


@check("ordered_keys: a uint32 array, for zeros, infinities, subnormals and the extremes", hint="key-flip")
def keys_special(student: Student) -> None:
    run_keys(student, [(SPECIAL, "special values"), (f32([-0.0]), "a lone negative zero"), (f32([7.0]), "one value"),
                       (SPECIAL[::-1].copy(), "special values, reversed")])  # fmt: skip


@check("ordered_keys puts random floats of both signs in order", hint="key-flip")
def keys_random(student: Student, rng: np.random.Generator) -> None:
    arrays = [(mixed(rng, n), f"random floats, array {i} of 4") for i, n in enumerate((3, 17, 100, 1000), start=1)]
    arrays.append((-np.abs(mixed(rng, 50)), "negative floats only"))
    patterns = rng.integers(0, 2**32, size=200, dtype=np.uint64).astype(np.uint32).view(np.float32)
    arrays.append((patterns[~np.isnan(patterns)], "random bit patterns"))
    run_keys(student, arrays)


@check("radix_select agrees with sorting, for every radix and many k", hint="walk")
def select_random(student: Student, rng: np.random.Generator) -> None:
    cases: list[tuple[Case, str]] = []
    for i in range(1, 13):
        n = int(rng.integers(1, 60))
        x = mixed(rng, n)
        for radix in (1, 2, 4, 8):
            k = int(rng.integers(1, n + 1))
            cases.append(((x, k, radix), f"random array {i} of 12, radix {radix}"))
    run_select(student, cases)


@check("radix_select: k = 1 is the largest, k = n the smallest", hint="walk")
def select_ends(student: Student, rng: np.random.Generator) -> None:
    cases: list[tuple[Case, str]] = []
    for i, n in enumerate((1, 2, 5, 40), start=1):
        x = mixed(rng, n)
        for radix in (1, 8):
            cases.append(((x, 1, radix), f"the largest, array {i} of 4, radix {radix}"))
            cases.append(((x, n, radix), f"the smallest, array {i} of 4, radix {radix}"))
    x = SPECIAL
    cases += [((x, 1, 4), "the largest of special values"), ((x, len(x), 2), "the smallest of special values")]
    cases.append(((f32([5.0]), np.int64(1), np.int64(8)), "one value, numpy integer arguments"))
    run_select(student, cases)


@check("radix_select: equal values count separately", hint="walk")
def select_ties(student: Student, rng: np.random.Generator) -> None:
    cases: list[tuple[Case, str]] = []
    x = f32([3, 1, 3, 2, 3, 1, 2, 3])
    for k in range(1, 9):
        cases.append(((x, k, 4), f"repeated values, case {k} of 8"))
    same = np.full(9, -1.5, dtype=np.float32)
    cases += [((same, 1, 8), "all equal, the first"), ((same, 9, 2), "all equal, the last")]
    draws = f32(rng.integers(-3, 4, size=30))
    for i, k in enumerate((1, 7, 15, 16, 29, 30), start=1):
        cases.append(((draws, k, 8), f"small integers with many ties, case {i} of 6"))
    run_select(student, cases)


@check("radix_select: negatives, infinities, subnormals, and zeros of both signs", hint="key-flip")
def select_special(student: Student) -> None:
    cases: list[tuple[Case, str]] = []
    for k in range(1, len(SPECIAL) + 1):
        cases.append(((SPECIAL, k, (1, 2, 4, 8)[k % 4]), f"special values, case {k} of {len(SPECIAL)}"))
    negatives = f32([-1.0, -2.0, -0.5, -3.0, -1e-3, -1e3])
    cases += [((negatives, k, 8), f"negative values, case {k} of 6") for k in range(1, 7)]
    run_select(student, cases)


@check("radix_select keeps the sign of zero: -0.0 is just below +0.0", hint="signed-zero")
def signed_zeros(student: Student) -> None:
    cases: list[tuple[Case, str]] = [
        ((f32([-0.0]), 1, 8), "a lone negative zero"),
        ((f32([0.0, -0.0]), 1, 4), "both zeros, the larger"),
        ((f32([0.0, -0.0]), 2, 4), "both zeros, the smaller"),
        ((f32([-0.0, 0.0]), 2, 1), "both zeros in the other order, the smaller, radix 1"),
        ((f32([-1.0, -0.0, 1.0, -0.0, 0.0]), 2, 8), "three zeros between two ones, the 2nd largest"),
        ((f32([-1.0, -0.0, 1.0, -0.0, 0.0]), 3, 2), "three zeros between two ones, the 3rd largest"),
        ((f32([-TINY, -0.0, TINY]), 2, 8), "negative zero between the smallest subnormals"),
    ]
    run_select(student, cases)


@check("radix_select runs every pass, with 1, 2, 4 and 8 bits per digit", hint="passes")
def every_pass(student: Student, rng: np.random.Generator) -> None:
    x = mixed(rng, 200)
    cases: list[tuple[Case, str]] = []
    for radix in (1, 2, 4, 8):
        for k in (1, 37, 100, 200):
            cases.append(((x, k, radix), f"one array of distinct values, radix {radix}"))
    # Keys that share their leading bits: values close together, so the candidates thin out late.
    close = f32(1.0 + np.arange(64) * 2.0**-20)
    cases += [((close, 20, radix), f"values a few ulps apart, radix {radix}") for radix in (1, 2, 4, 8)]
    run_select(student, cases)


@check("x is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    # Views of one array in one crossing: a call that changes its view changes what the later calls see.
    # (The whole array is passed as the view [:]: the array itself would reach the sandbox as a buffer of its own.)
    whole = f32([4.0, -1.0, 0.5, -3.0, 2.0, -0.0, 7.0, -6.0, 1.0, 0.0])[:]
    parts = [whole[5:], whole[2:8], whole, whole[:5]]
    labels = ["the second half", "the middle", "the whole array", "the first half"]
    keys = student.ordered_keys.each([(p,) for p in parts])
    for part, label, got in zip(parts, labels, keys, strict=True):
        expect_array(got, expected_keys(part), what=f"the keys of {label}, after other calls on the same array",
                     dtype=np.uint32, exact=True, hint="form")  # fmt: skip
    calls: list[Case] = [(whole[5:], 2, 8), (whole[2:8], 3, 4), (whole, 4, 8), (whole[:5], 1, 2)]
    results = student.radix_select.each(calls)
    for call, label, got in zip(calls, labels, results, strict=True):
        expect_select(got, expected_select(*call), f"{label}, after other calls on the same array")
