"""Checks for "A 4-bit Weight GEMV".

The expected values are computed here by another route than a solution's: bytes are packed and
unpacked one at a time with integer arithmetic (q_low + 16·q_high, and divmod by 16), and each
output is the exactly rounded sum (math.fsum) of its terms, each term a product of Python floats.
Every term is exact in float64 (a 5-bit integer times two 11-bit significands), so only the sum
rounds; y is compared per row with an absolute tolerance of 1e-9 times the sum of that row's
|terms|, as cancellation requires. A wrong answer is named by the grader, by comparing it with the
exercise's mutants on the same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, expect_array, fail

# --------------------------------------------------------------------------- independent expected values


def expected_packed(q: np.ndarray) -> np.ndarray:
    """Byte j of a row is q[2j] + 16·q[2j + 1], one byte at a time."""
    rows = [[int(row[2 * j]) + 16 * int(row[2 * j + 1]) for j in range(len(row) // 2)] for row in q]
    return np.array(rows, dtype=np.uint8).reshape(q.shape[0], q.shape[1] // 2)


def unpacked(packed: np.ndarray) -> list[list[int]]:
    """The 4-bit values, two per byte: the low nibble first (divmod by 16, not bit operations)."""
    rows = []
    for row in packed:
        values = []
        for byte in row:
            high, low = divmod(int(byte), 16)
            values += [low, high]
        rows.append(values)
    return rows


def expected_y(x: np.ndarray, packed: np.ndarray, scales: np.ndarray, zeros: np.ndarray,
               group: int) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """y and, per row, the sum of the terms' magnitudes (the scale of the tolerance)."""
    xs = [float(v) for v in x]
    ys, sizes = [], []
    for n, q in enumerate(unpacked(packed)):
        terms = [(q[k] - int(zeros[n][k // int(group)])) * float(scales[n][k // int(group)]) * xs[k]
                 for k in range(len(q))]  # fmt: skip
        ys.append(math.fsum(terms))
        sizes.append(math.fsum(abs(t) for t in terms))
    return np.array(ys), np.array(sizes)


# --------------------------------------------------------------------------- comparing answers


def expect_y(got: Any, want: np.ndarray, size: np.ndarray, what: str) -> None:
    """Row n within 1e-9·|want[n]| + 1e-9·Σ_k |term|; a failure is reported by expect_array."""
    if isinstance(got, np.ndarray) and got.dtype == np.float64 and got.shape == want.shape:
        with np.errstate(invalid="ignore", over="ignore"):
            if bool(np.all(np.abs(got - want) <= 1e-9 * (size + np.abs(want)))):
                return
    # The smallest row tolerance is at most every row's, so what failed above fails here too, with
    # the helper's message (the form first, then the values).
    expect_array(got, want, what=what, dtype=np.float64, rtol=1e-9, atol=1e-9 * float(size.min()), hint="form")
    fail(f"{what} differs from the expected values beyond the tolerance of its row")


def expect_packed(got: Any, q: np.ndarray, what: str) -> None:
    expect_array(got, expected_packed(q), what=what, dtype=np.uint8, exact=True, hint="pack-dtype")


Case = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]  # x, packed, scales, zeros, group


def run_gemv(student: Student, cases: list[tuple[Case, str]]) -> None:
    """Every case in one crossing, each compared with its expected y."""
    results = student.w4a16_gemv.each([case for case, _ in cases])
    for (case, what), got in zip(cases, results, strict=True):
        want, size = expected_y(*case)
        expect_y(got, want, size, f"y ({what})")


def random_case(rng: np.random.Generator, n: int, k: int, group: int, *, q_low: int = 0, scale: float = 0.05,
                x_scale: float = 1.0) -> Case:  # fmt: skip
    q = rng.integers(q_low, 16, size=(n, k)).astype(np.uint8)
    scales = (rng.uniform(0.2, 1.0, size=(n, k // group)) * scale).astype(np.float16)
    zeros = rng.integers(0, 16, size=(n, k // group)).astype(np.uint8)
    x = (rng.normal(size=k) * x_scale).astype(np.float16)
    return x, expected_packed(q), scales, zeros, group


# --------------------------------------------------------------------------- the checks

EXAMPLE_Q = np.array([[1, 2, 15, 0], [8, 8, 8, 8]], dtype=np.uint8)
EXAMPLE_X = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float16)
EXAMPLE_SCALES = np.array([[0.5, 2.0], [1.0, 0.25]], dtype=np.float16)
EXAMPLE_ZEROS = np.array([[1, 8], [8, 0]], dtype=np.uint8)


@check("pack_int4 on the statement's example", public=True, hint="nibble-order")
def worked_example_pack(student: Student) -> None:
    one_row, both_rows = student.pack_int4.each([(EXAMPLE_Q[:1].copy(),), (EXAMPLE_Q,)])
    expect_array(one_row, np.array([[0x21, 0x0F]]), what="the packed row [1, 2, 15, 0]", dtype=np.uint8,
                 exact=True, hint="pack-dtype")  # fmt: skip
    expect_array(both_rows, np.array([[0x21, 0x0F], [0x88, 0x88]]), what="the packed example matrix",
                 dtype=np.uint8, exact=True, hint="pack-dtype")  # fmt: skip


@check("w4a16_gemv on the statement's example", public=True, points=2, hint="zero-point")
def worked_example_gemv(student: Student) -> None:
    packed = np.array([[0x21, 0x0F], [0x88, 0x88]], dtype=np.uint8)
    got = student.w4a16_gemv(EXAMPLE_X, packed, EXAMPLE_SCALES, EXAMPLE_ZEROS, 2)
    expect_y(got, np.array([-21.0, 14.0]), np.array([107.0, 14.0]), "y for the statement's example")


@check("pack_int4 returns uint8 bytes of shape (N, K/2), also when a high nibble is 8 or more", hint="pack-dtype")
def pack_form(student: Student) -> None:
    cases = [
        np.array([[0, 15]], dtype=np.uint8),  # one byte, 0xF0: past what int8 holds
        np.array([[15, 15], [0, 0], [7, 8]], dtype=np.uint8),
        np.full((2, 6), 15, dtype=np.uint8),
        np.tile(np.arange(16, dtype=np.uint8), (3, 1)),  # every value in both nibbles
        np.tile(np.arange(16, dtype=np.uint8)[::-1], (2, 2)),
    ]
    results = student.pack_int4.each([(q,) for q in cases])
    for n, (q, got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_packed(got, q, f"the packed bytes (case {n} of {len(cases)})")


@check("pack_int4 on random matrices of many shapes", hint="nibble-order")
def pack_random(student: Student, rng: np.random.Generator) -> None:
    shapes = [(1, 2), (1, 8), (4, 2), (3, 10), (8, 32), (17, 6), (5, 64), (32, 128)]
    cases = [rng.integers(0, 16, size=shape).astype(np.uint8) for shape in shapes]
    results = student.pack_int4.each([(q,) for q in cases])
    for n, (q, got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_packed(got, q, f"the packed bytes (random matrix {n} of {len(cases)})")


@check("w4a16_gemv with one group per row: the nibbles of each byte, in order", hint="nibble-order")
def gemv_nibbles(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, (rows, k) in enumerate([(1, 2), (3, 8), (5, 16), (2, 40), (6, 64)], start=1):
        cases.append((random_case(rng, rows, k, k), f"one group, case {n} of 5"))
    # One row: the bytes 0x10 and 0x01 say which nibble comes first.
    ones = np.ones(4, dtype=np.float16)
    x = np.array([1.0, 2.0, 4.0, 8.0], dtype=np.float16)
    cases.append(((x, np.array([[0x10, 0x01]], dtype=np.uint8), ones[None, :1], np.zeros((1, 1), np.uint8), 4),
                  "the bytes 0x10 and 0x01"))  # fmt: skip
    run_gemv(student, cases)


@check("w4a16_gemv with several groups per row: contiguous groups, scales of shape (N, K/group)", hint="groups")
def gemv_groups(student: Student, rng: np.random.Generator) -> None:
    shapes = [
        (2, 8, 2, "groups of 2"),
        (3, 12, 4, "as many rows as groups"),
        (5, 12, 4, "more rows than groups"),
        (2, 24, 4, "more groups than rows"),
        (4, 32, 8, "as many rows as groups, groups of 8"),
        (7, 96, 16, "many rows and groups"),
        (3, 36, 6, "groups of 6"),
    ]
    cases = [(random_case(rng, n, k, g, scale=4.0), label) for n, k, g, label in shapes]
    # Scales a thousand times apart from one group to the next: a misplaced group shows at once.
    x, packed, _, zeros, group = random_case(rng, 2, 16, 4)
    steep = np.array([[1.0, 1000.0, 0.001, 10.0], [0.5, 0.25, 8.0, 64.0]], dtype=np.float16)
    cases.append(((x, packed, steep, zeros, group), "scales far apart"))
    cases.append((random_case(rng, 4, 16, np.int64(4)), "a numpy integer group"))
    run_gemv(student, cases)


@check("w4a16_gemv: nibbles are unsigned (0 to 15), and a value below its zero point gives a negative weight",
       hint="unsigned")  # fmt: skip
def gemv_unsigned(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, (rows, k, g) in enumerate([(2, 8, 4), (4, 16, 2), (3, 32, 8)], start=1):
        cases.append((random_case(rng, rows, k, g, q_low=8), f"large nibbles, case {n} of 3"))
    # Every value below its zero point: uint8 arithmetic would wrap each difference around 256.
    q = np.array([[0, 1, 2, 3, 4, 5, 6, 7], [3, 0, 3, 0, 14, 9, 14, 9]], dtype=np.uint8)
    zeros = np.array([[8, 15], [4, 15]], dtype=np.uint8)
    scales = np.array([[0.5, 0.125], [2.0, 1.0]], dtype=np.float16)
    x = np.array([1.0, -1.0, 2.0, 0.5, 3.0, -2.0, 1.5, 0.25], dtype=np.float16)
    cases.append(((x, expected_packed(q), scales, zeros, 4), "values below their zero points"))
    # Zero points of 0 and 15, and nibbles of 15 everywhere.
    q = np.full((2, 6), 15, dtype=np.uint8)
    cases.append(((x[:6], expected_packed(q), scales[:, :1].repeat(3, axis=1), np.array([[0, 15, 0], [15, 0, 15]],
                  dtype=np.uint8), 2), "nibbles of 15, zero points of 0 and 15"))  # fmt: skip
    run_gemv(student, cases)


@check("w4a16_gemv computes in float64: large and tiny float16 inputs, and rows that cancel", hint="float64")
def gemv_precision(student: Student, rng: np.random.Generator) -> None:
    cases = []
    # float16 holds at most 65504: these products and sums only fit in a wider type.
    x, packed, _, zeros, group = random_case(rng, 3, 16, 4)
    big = np.array([[60000.0, 30000.0, 50000.0, 65504.0]] * 3, dtype=np.float16)
    cases.append(((np.full(16, 40000.0, dtype=np.float16), packed, big, zeros, group), "large scales and inputs"))
    # Subnormal float16 scales, exact in float64.
    tiny = np.array([[2.0**-24, 3 * 2.0**-20, 2.0**-16, 5 * 2.0**-24]] * 3, dtype=np.float16)
    cases.append(((x, packed, tiny, zeros, group), "subnormal scales"))
    # Many terms of one size: float16 rounding of each weight or of the running sum shows.
    cases.append((random_case(rng, 4, 256, 32, scale=0.01), "a long row"))
    cases.append((random_case(rng, 8, 128, 16, scale=1.0, x_scale=100.0), "inputs in the hundreds"))
    # A row whose terms cancel: the second half repeats the first with x negated.
    q = rng.integers(0, 16, size=(2, 16)).astype(np.uint8)
    q[:, 8:] = q[:, :8]
    half = (rng.normal(size=8) * 50.0).astype(np.float16)
    x = np.concatenate([half, -half])
    scales = np.array([[3.0, 3.0], [0.75, 0.75]], dtype=np.float16)
    zeros = np.array([[5, 5], [9, 9]], dtype=np.uint8)
    cases.append(((x, expected_packed(q), scales, zeros, 8), "rows whose terms cancel"))
    run_gemv(student, cases)


@check("w4a16_gemv on random matrices of many shapes", hint="zero-point")
def gemv_random(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(1, 13):
        rows = int(rng.integers(1, 24))
        group = int(rng.choice([2, 4, 8, 16, 32]))
        k = group * int(rng.integers(1, 6))
        cases.append((random_case(rng, rows, k, group, scale=float(rng.choice([0.01, 0.1, 2.0]))),
                      f"random matrix {n} of 12"))  # fmt: skip
    run_gemv(student, cases)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    q = rng.integers(0, 16, size=(4, 16)).astype(np.uint8)[:]
    # Views of one array in one crossing: a call that changes its view changes what the later calls see.
    # Only views reach the sandbox as views of one buffer: row slices (a column slice arrives as a copy),
    # and the whole matrix as the view [:] (the array itself would arrive as a buffer of its own).
    parts = [q[2:], q[1:3], q, q[:1]]
    labels = ["the last two rows", "the middle rows", "the whole matrix", "the first row"]
    for part, label, got in zip(parts, labels, student.pack_int4.each([(p,) for p in parts]), strict=True):
        expect_packed(got, part, f"the packed bytes of {label}, after other calls on the same matrix")
    x, packed, scales, zeros = (part[:] for part in random_case(rng, 4, 16, 4)[:4])
    calls: list[Case] = [(x, packed, scales, zeros, 4), (x, packed[:2], scales[:2], zeros[:2], 4),
                         (x, packed[1:], scales[1:], zeros[1:], 4), (x, packed, scales, zeros, 4)]  # fmt: skip
    labels = ["the whole matrix", "its first rows", "its last rows", "the whole matrix again"]
    results = student.w4a16_gemv.each(calls)
    for n, (call, label, got) in enumerate(zip(calls, labels, results, strict=True), start=1):
        want, size = expected_y(*call)
        expect_y(got, want, size, f"y of {label} (call {n} of 4 on the same arrays)")
