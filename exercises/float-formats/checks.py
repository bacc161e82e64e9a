"""Hidden checks for "bfloat16 and FP8, Bit for Bit".

Expected values come from tables of every value each format holds (all 32,641 non-negative
bfloat16 patterns up to infinity, all 127 non-negative E4M3 codes below NaN): each input is placed
between its two neighbours in the table by a search, and the nearer one is taken, the one with the
even code on a tie. Nothing here adds rounding biases to bit patterns or computes exponents, as a
solution does. Every comparison is exact.
"""

from __future__ import annotations

import numpy as np

from grader.checks import Student, check, describe, expect_array, fail

F32_MAX = float(np.finfo(np.float32).max)

# --------------------------------------------------------------------------- the tables


def _bf16_table() -> np.ndarray:
    """The non-negative bfloat16 values in code order (increasing), then code 0x7F80, infinity.

    Infinity stands in the table as 2^128, the value the next code would have if the exponent went
    on: that is where IEEE rounding puts the boundary of overflow.
    """
    codes = np.arange(0x7F80, dtype=np.uint32)
    return np.append((codes << 16).view(np.float32).astype(np.float64), 2.0**128)


def _fp8_table() -> np.ndarray:
    """The non-negative E4M3 values in code order (increasing): codes 0 … 126 (127 is NaN)."""
    values = []
    for code in range(127):
        e, m = code >> 3, code & 7
        values.append(m / 8 * 2.0**-6 if e == 0 else (1 + m / 8) * 2.0 ** (e - 7))
    return np.array(values)


BF16 = _bf16_table()
FP8 = _fp8_table()


def nearest(table: np.ndarray, magnitudes: np.ndarray) -> np.ndarray:
    """The value of the table nearest to each magnitude, ties to the even code (position).

    Differences of a float32 and a table value are exact in float64, so the comparisons are exact.
    """
    hi = np.searchsorted(table, magnitudes, side="left").clip(max=len(table) - 1)
    lo = (hi - 1).clip(min=0)
    below, above = magnitudes - table[lo], table[hi] - magnitudes
    # An exact hit (below could be negative only there, at hi = 0).
    pick = np.where(above <= 0, hi, np.where(below < above, lo, np.where(above < below, hi, -1)))
    tie = pick == -1
    pick[tie] = np.where(lo[tie] % 2 == 0, lo[tie], hi[tie])
    return table[pick]


def want_bf16(x: np.ndarray) -> np.ndarray:
    a = np.abs(x.astype(np.float64))
    out = nearest(BF16, np.where(np.isinf(a), 2.0**128, a))
    out[out == 2.0**128] = np.inf
    return (np.copysign(out, x)).astype(np.float32)


def want_fp8(x: np.ndarray) -> np.ndarray:
    a = np.abs(x.astype(np.float64))
    out = np.where(a > 448.0, 448.0, nearest(FP8, np.minimum(a, 448.0)))
    return (np.copysign(out, x)).astype(np.float32)


def f32(values) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def from_bits(bits: np.ndarray) -> np.ndarray:
    return bits.astype(np.uint32).view(np.float32)


def compare(got: object, x: np.ndarray, want: np.ndarray, what: str) -> None:
    expect_array(got, want, what=what, dtype=np.float32, exact=True, hint="form")


def compare_bf16(got: object, x: np.ndarray, want: np.ndarray, what: str) -> None:
    """Exact comparison, naming two mistakes whose answers the grader's matching cannot tell apart.

    A finite answer where infinity is right, and zero where a float32 subnormal is right, differ
    from the right answers by an infinite relative or a tiny absolute amount, which the naming of
    known mistakes counts as alike. When every wrong value is one of these, the cause is certain.
    """
    if isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype == np.float32:
        wrong = got != want
        if wrong.any() and np.all(np.isinf(want[wrong]) & np.isfinite(got[wrong])):
            fail(f"{what}: {int(wrong.sum())} of {want.size} values that should overflow to ±inf came back finite",
                 hint="overflow", expected=want, got=got)  # fmt: skip
        tiny = np.abs(want) <= np.float32(2.0**-126)
        if wrong.any() and np.all(tiny[wrong] & (got[wrong] == 0)):
            fail(f"{what}: {int(wrong.sum())} of {want.size} values came back as zero where a float32 subnormal "
                 "rounds to a non-zero bfloat16", hint="no-flush", expected=want, got=got)  # fmt: skip
    compare(got, x, want, what)


def run_bf16(student: Student, cases: list[tuple[np.ndarray, str]]) -> None:
    results = student.to_bf16.each([(x,) for x, _ in cases])
    for (x, what), got in zip(cases, results, strict=True):
        compare_bf16(got, x, want_bf16(x), what)


def run_fp8(student: Student, cases: list[tuple[np.ndarray, str]]) -> None:
    results = student.to_fp8_e4m3.each([(x,) for x, _ in cases])
    for (x, what), got in zip(cases, results, strict=True):
        compare(got, x, want_fp8(x), what)


def signed(rng: np.random.Generator, a: np.ndarray) -> np.ndarray:
    return np.where(rng.random(a.shape) < 0.5, -a, a).astype(np.float32)


# --------------------------------------------------------------------------- the checks


@check("bfloat16: the worked example from the statement", public=True, hint="bf16-round")
def worked_bf16(student: Student) -> None:
    x = f32([1 + 2.0**-8, 1 + 3 * 2.0**-8, np.pi, F32_MAX])
    want = f32([1.0, 1 + 2.0**-6, 3.140625, np.inf])
    compare_bf16(student.to_bf16(x), x, want, "to_bf16 of the four worked values")


@check("FP8 E4M3: the worked example from the statement", public=True, hint="fp8-grid")
def worked_fp8(student: Student) -> None:
    x = f32([0.3, 17, 19, 240, 250, 460, 500, np.inf, 2.0**-10, 3 * 2.0**-10])
    want = f32([0.3125, 16, 20, 240, 256, 448, 448, 448, 0, 2.0**-8])
    compare(student.to_fp8_e4m3(x), x, want, "to_fp8_e4m3 of the ten worked values")


@check("Both return a float32 array of x's shape, for 1-D, 2-D and 3-D inputs", hint="form")
def output_form(student: Student, rng: np.random.Generator) -> None:
    shapes = [(1,), (7,), (3, 5), (2, 3, 4)]
    inputs = [(rng.normal(size=shape) * 10).astype(np.float32) for shape in shapes]
    for name, want in (("to_bf16", want_bf16), ("to_fp8_e4m3", want_fp8)):
        results = getattr(student, name).each([(x,) for x in inputs])
        for x, got in zip(inputs, results, strict=True):
            what = f"{name}'s result for an input of shape {x.shape}"
            if not isinstance(got, np.ndarray):
                fail(f"{what} should be a float32 numpy array, got {describe(got)}", hint="form")
            compare(got, x, want(x), what)


@check("bfloat16: random values over the whole float32 range", hint="bf16-round")
def bf16_random(student: Student, rng: np.random.Generator) -> None:
    # Random bit patterns of normal float32 values: every exponent, every mantissa.
    bits = rng.integers(0x00800000, 0x7F800000, size=3000) | (rng.integers(0, 2, size=3000) << 31)
    moderate = signed(rng, np.exp(rng.uniform(-20, 20, size=(40, 25))))
    run_bf16(student, [(from_bits(bits), "3000 random normal float32 values"), (moderate, "a (40, 25) array")])


@check("bfloat16: values exactly halfway between two neighbours go to the even one", hint="ties-even")
def bf16_ties(student: Student, rng: np.random.Generator) -> None:
    upper = rng.integers(0x0080, 0x7F7F, size=400)
    upper[:4] = [0x3F80, 0x3F81, 0x4049, 0x404A]  # around 1 and π: both parities
    ties = (upper << 16) | 0x8000 | (rng.integers(0, 2, size=400) << 31)
    near = (upper << 16) | np.where(rng.random(400) < 0.5, 0x7FFF, 0x8001)
    run_bf16(
        student,
        [(from_bits(ties), "400 exact ties"), (from_bits(near), "400 values one bit off a tie")],
    )


@check("bfloat16: float32 subnormals are rounded, not flushed to zero", hint="no-flush")
def bf16_subnormals(student: Student, rng: np.random.Generator) -> None:
    mantissas = rng.integers(1, 0x00800000, size=600)
    mantissas[:6] = [0x8000, 0x18000, 0x7FFF, 0x10000, 0x7F8000, 0x7FFFFF]  # ties, and a carry into the normals
    # Normal values next to them, ties among them: a wrong rounding shows there too.
    low = np.where(rng.random(200) < 0.5, 0x8000, rng.integers(0, 0x10000, size=200))
    normals = (rng.integers(0x3C00, 0x4400, size=200) << 16) | low
    bits = np.concatenate([mantissas, normals]) | (rng.integers(0, 2, size=800) << 31)
    run_bf16(student, [(from_bits(bits), "600 float32 subnormals and 200 normal values")])


@check("bfloat16: overflow to infinity, and infinities kept", hint="overflow")
def bf16_overflow(student: Student) -> None:
    patterns = [0x7F7F0000, 0x7F7F7FFF, 0x7F7F8000, 0x7F7F8001, 0x7F7FFFFF, 0x7F7E8000, 0x7F7EFFFF, 0x7F800000]
    bits = np.array(patterns + [p | 0x80000000 for p in patterns])
    run_bf16(student, [(from_bits(bits), "16 values at the top of the range")])


@check("FP8 E4M3: random values over the normal range", hint="fp8-grid")
def fp8_random(student: Student, rng: np.random.Generator) -> None:
    a = np.exp2(rng.uniform(-6, np.log2(448), size=3000))
    below_powers = f32(2.0 ** np.arange(-5, 9)[:, None] * (1 - rng.uniform(0, 2**-5, size=(14, 20)))).ravel()
    run_fp8(
        student,
        [
            (signed(rng, a), "3000 random values over the normal range"),
            (signed(rng, below_powers), "280 values just below powers of two"),
        ],
    )


@check("FP8 E4M3: subnormals and underflow below 2^-6", hint="subnormals")
def fp8_subnormals(student: Student, rng: np.random.Generator) -> None:
    a = np.concatenate([rng.uniform(0, 2.0**-6, size=500), np.exp2(rng.uniform(-16, -6, size=300))])
    steps = np.arange(0, 16) * 2.0**-10  # every whole and half step of 2^-9 below 2^-6
    run_fp8(
        student,
        [
            (signed(rng, a), "800 values in the subnormal range"),
            (signed(rng, steps), "the 16 whole and half subnormal steps"),
        ],
    )


@check("FP8 E4M3: ties between neighbouring codes go to the even code", hint="ties-even")
def fp8_ties(student: Student, rng: np.random.Generator) -> None:
    midpoints = (FP8[:-1] + FP8[1:]) / 2  # exact: each is a float32 with a few bits
    x = signed(rng, midpoints)
    run_fp8(student, [(x, "the 126 midpoints between neighbouring codes"), (-x, "the same, signs flipped")])


@check("FP8 E4M3: saturation at ±448, infinities included", hint="saturate")
def fp8_saturation(student: Student, rng: np.random.Generator) -> None:
    fixed = [447.5, 448, 449, 463.9, 464, 464.1, 479.9, 480, 480.1, 500, 511, 512, 1e4, 1e20, F32_MAX, np.inf]
    random = np.exp2(rng.uniform(np.log2(448), 127, size=200))
    x = f32(fixed + list(random))
    run_fp8(student, [(x, "216 values at and beyond the largest code"), (-x, "the same, negative")])


@check("The input array is left unchanged", hint="no-mutation")
def input_unchanged(student: Student, rng: np.random.Generator) -> None:
    bits = rng.integers(0x30000000, 0x50000000, size=500)
    x = from_bits(bits)
    # One array for two calls in one crossing: a call that writes into its argument changes what
    # the second call is given, and its answer shows it.
    for name, want in (("to_bf16", want_bf16), ("to_fp8_e4m3", want_fp8)):
        first, second = getattr(student, name).each([(x,), (x,)])
        compare(first, x, want(x), f"{name}'s result on the first of two calls on one array")
        compare(second, x, want(x), f"{name}'s result on the second call on the same array")
