"""Hidden checks for "Summing in Half Precision".

Expected values never touch numpy's float16 or float32 arithmetic: every number is an exact
integer count of 2^-24 (the smallest float16 step, so every float16 value is one), and each
operation is rounded by hand to the nearest float16 or float32 value, ties to even, with Python
ints. The results are compared exactly. A wrong answer is named by the grader, by comparing it
with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from grader.checks import Student, check, expect_float

UNIT = 24  # every value is an integer k, standing for k · 2^-24
FP16 = (10, -14)  # stored mantissa bits, smallest normal exponent
FP32 = (23, -126)


# --------------------------------------------------------------------------- independent reference


def units(value: float) -> int:
    exact = Fraction(float(value)) * 2**UNIT
    assert exact.denominator == 1
    return exact.numerator


def rounded(k: int, fmt: tuple[int, int]) -> int:
    """k · 2^-24 rounded to the nearest value of the format (ties to even), in units of 2^-24."""
    mantissa_bits, min_exp = fmt
    if k == 0:
        return 0
    sign, a = (1, k) if k > 0 else (-1, -k)
    exponent = max(a.bit_length() - 1 - UNIT, min_exp)  # 2^exponent <= |value| < 2^(exponent + 1)
    shift = exponent - mantissa_bits + UNIT  # the format's step here is 2^shift units
    if shift <= 0:
        return k  # finer than the unit: exact
    step = 1 << shift
    q, r = divmod(a, step)
    if 2 * r > step or (2 * r == step and q % 2 == 1):
        q += 1
    return sign * q * step


def blocked_sum(x: np.ndarray, block: int) -> float:
    values = [units(v) for v in x]
    total = 0
    for start in range(0, len(values), block):
        partial = 0
        for k in values[start : start + block]:
            partial = rounded(partial + k, FP16)
            assert abs(partial) < 60000 * 2**UNIT
        total = rounded(total + partial, FP32)
    return total / 2**UNIT


def kahan_sum(x: np.ndarray) -> float:
    s = c = 0
    for k in (units(v) for v in x):
        y = rounded(k - c, FP16)
        t = rounded(s + y, FP16)
        c = rounded(rounded(t - s, FP16) - y, FP16)
        s = t
        assert abs(s) < 60000 * 2**UNIT
    return s / 2**UNIT


def compare_blocked(student: Student, cases: list[tuple[np.ndarray, int, str]]) -> None:
    results = student.fp16_blocked_sum.each([(x, block) for x, block, _ in cases])
    for n, ((x, block, label), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_float(got, blocked_sum(x, block), what=f"the blocked sum, case {n} of {len(cases)} ({label})",
                     rtol=0.0, atol=0.0, hint="form")  # fmt: skip


def compare_kahan(student: Student, cases: list[tuple[np.ndarray, str]]) -> None:
    results = student.fp16_kahan_sum.each([(x,) for x, _ in cases])
    for n, ((x, label), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_float(got, kahan_sum(x), what=f"the Kahan sum, case {n} of {len(cases)} ({label})",
                     rtol=0.0, atol=0.0, hint="form")  # fmt: skip


def fp16(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).astype(np.float16)


def random_values(rng: np.random.Generator, n: int, low: float, high: float) -> np.ndarray:
    return fp16(rng.uniform(low, high, size=n))


def grid_values(rng: np.random.Generator, n: int, scale: float, signed: bool) -> np.ndarray:
    """Random float16 multiples of 2^-8. While a total stays below 8192, float32 adds such block
    sums exactly: these cases test the float16 rounding inside blocks, and float32_total the rest."""
    raw = rng.normal(size=n) * scale if signed else rng.uniform(0.0, scale, size=n)
    return fp16(np.round(raw * 256) / 256)


# --------------------------------------------------------------------------- the checks

EXAMPLE = fp16([2048, 1, 1, 1, 1])


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    ones = fp16(np.ones(4096))
    compare_blocked(student, [(EXAMPLE, 5, "block 5"), (EXAMPLE, 8, "block 8"), (EXAMPLE, 2, "block 2"),
                              (EXAMPLE, 1, "block 1"), (ones, 4096, "4096 ones in one block")])  # fmt: skip
    compare_kahan(student, [(EXAMPLE, "Kahan")])


@check("An empty array sums to 0.0", hint="form")
def empty(student: Student) -> None:
    x = np.zeros(0, dtype=np.float16)
    compare_blocked(student, [(x, 1, "an empty array, block 1"), (x, 4, "an empty array, block 4")])
    compare_kahan(student, [(x, "an empty array")])


@check("Blocked sums stall in float16 when a block's sum grows", hint="fp16-rounding")
def stalled_blocks(student: Student) -> None:
    big_then_small = fp16([1024.0] + [0.25] * 300)
    many_small = fp16(np.full(3000, 0.1))
    cases = [
        (big_then_small, 301, "a large value then small ones, one block"),
        (big_then_small, 16, "a large value then small ones, blocks of 16"),
        (many_small, 3000, "thousands of small values, one block"),
        (many_small, 64, "thousands of small values, blocks of 64"),
        (many_small, 7, "thousands of small values, blocks of 7"),
    ]
    compare_blocked(student, cases)


@check("Random arrays, of lengths rarely a multiple of the block", hint="fp16-rounding")
def random_blocked(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, block in ((1, 1), (7, 3), (100, 8), (1000, 64), (3001, 256), (50, 64), (777, 1)):
        cases.append((grid_values(rng, n, 5.0, signed=False), block, f"{n} values of one sign"))
    for n, block in ((200, 16), (999, 100), (2048, 32)):
        cases.append((grid_values(rng, n, 4.0, signed=True), block, f"{n} values of both signs"))
    compare_blocked(student, cases)


@check("The last, shorter block counts too", hint="last-block")
def short_last_block(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, block in ((10, 4), (33, 8), (101, 50), (5, 3)):
        x = random_values(rng, n, 0.0, 1.0)
        x[-(n % block) :] = fp16(rng.uniform(100.0, 200.0, size=n % block))  # the largest values last
        cases.append((x, block, f"{n} values, blocks of {block}"))
    compare_blocked(student, cases)


@check("The block sums are added in float32, each addition rounded", hint="float32-total")
def float32_total(student: Student, rng: np.random.Generator) -> None:
    # A large block sum, then many tiny ones, each below half a float32 step at the total's size:
    # rounding to float32 drops every one of them, a wider total adds them up.
    cases = [
        (fp16([2048.0] + [0.0001] * 5000), 1, "a large value then thousands of tiny ones, blocks of 1"),
        (
            np.concatenate([fp16([1000.0] * 4), fp16(rng.uniform(1.5e-5, 2.5e-5, size=8000))]),
            4,
            "a large block then thousands of tiny ones",
        ),
        (
            np.concatenate([fp16(np.full(8, 5000.0)), fp16(rng.uniform(0.0004, 0.0006, size=1600))]),
            8,
            "one large block then tiny ones",
        ),
    ]
    x = fp16(rng.uniform(0.5, 2.0, size=4000))
    cases.append((x, 10, "400 blocks of moderate values"))
    compare_blocked(student, cases)


@check("Kahan's sum recovers what a float16 sum loses", hint="kahan")
def kahan_recovers(student: Student) -> None:
    cases = [
        (fp16([1024.0] + [0.25] * 300), "a large value then small ones"),
        (fp16(np.full(3000, 0.1)), "thousands of small values"),
        (fp16([2048.0] + [1.0] * 99), "a large value then ties"),
        (fp16([0.1, 2000.0, 0.1, -2000.0] * 20), "cancellation"),
    ]
    compare_kahan(student, cases)


@check("Kahan's sum on random arrays", hint="kahan")
def kahan_random(student: Student, rng: np.random.Generator) -> None:
    cases = [(fp16([3.0]), "a single value")]
    for n in (2, 17, 300, 2500):
        cases.append((random_values(rng, n, 0.0, 6.0), f"{n} values of one sign"))
    for n in (50, 1000):
        cases.append((fp16(rng.normal(size=n) * 8.0), f"{n} values of both signs"))
    compare_kahan(student, cases)


@check("The array passed in is left unchanged", hint="no-mutation")
def input_unchanged(student: Student, rng: np.random.Generator) -> None:
    x = grid_values(rng, 300, 8.0, signed=False)
    x[0] = 1000.0
    # The same array for three calls in one crossing: a call that changes it changes what the
    # later ones see.
    calls = [(x, 16), (x, 7), (x, 16)]
    results = student.fp16_blocked_sum.each(calls)
    for n, ((_, block), got) in enumerate(zip(calls, results, strict=True), start=1):
        expect_float(got, blocked_sum(x, block), what=f"the blocked sum, call {n} of 3 on one array",
                     rtol=0.0, atol=0.0, hint="form")  # fmt: skip
    first, second = student.fp16_kahan_sum.each([(x,), (x,)])
    for n, got in enumerate((first, second), start=1):
        expect_float(got, kahan_sum(x), what=f"the Kahan sum, call {n} of 2 on one array", rtol=0.0, atol=0.0,
                     hint="form")  # fmt: skip
