"""Checks for "A Tiled Matrix Multiply".

The expected product is computed here with np.einsum over the whole matrices at once, never tile
by tile; the expected load count comes from counting, for every element of A, how many output
tiles' columns it is loaded for (one per column tile), and for every element of B one per row
tile: M·K·⌈N/tile_n⌉ + K·N·⌈M/tile_m⌉. The statement's examples are also worked out by hand. A
wrong answer is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import (
    Student,
    check,
    describe,
    expect_array,
    expect_integer,
    expect_sequence,
    fail,
    scaled_tolerance,
)

Case = tuple[np.ndarray, np.ndarray, int, int, int]

# --------------------------------------------------------------------------- independent reference


def expected_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("ik,kj->ij", a, b)


def expected_loads(M: int, N: int, K: int, tile_m: int, tile_n: int) -> int:
    """Each element of A is loaded once per tile of columns of C, each of B once per tile of rows."""
    column_tiles = len(range(0, N, tile_n))
    row_tiles = len(range(0, M, tile_m))
    return M * K * column_tiles + K * N * row_tiles


# --------------------------------------------------------------------------- comparing answers


def compare(got: Any, a: np.ndarray, b: np.ndarray, tile_m: int, tile_n: int, what: str) -> None:
    c, loads = expect_sequence(got, 2, what=f"the result ({what})", hint="form")
    M, K = a.shape
    N = b.shape[1]
    if isinstance(loads, bool) or not isinstance(loads, (int, np.integer)):
        fail(f"loads ({what}) should be an int, got {describe(loads)}", hint="form")
    want = expected_product(a, b)
    expect_array(c, want, what=f"c ({what})", dtype=np.float64, hint="form", **scaled_tolerance(want))
    expect_integer(loads, expected_loads(M, N, K, tile_m, tile_n), what=f"loads ({what})")


def run(student: Student, cases: list[tuple[Case, str]]) -> None:
    """All the cases in one crossing, each compared with its expected product and count."""
    results = student.tiled_matmul.each([case for case, _ in cases])
    for ((a, b, tile_m, tile_n, _), what), got in zip(cases, results, strict=True):
        compare(got, a, b, tile_m, tile_n, what)


def matrices(rng: np.random.Generator, M: int, K: int, N: int) -> tuple[np.ndarray, np.ndarray]:
    return rng.normal(size=(M, K)), rng.normal(size=(K, N))


# --------------------------------------------------------------------------- the checks


@check("The statement's 4 × 4 example: 64 loads", public=True, points=2, hint="reuse")
def worked_example(student: Student) -> None:
    a = np.arange(16.0).reshape(4, 4)
    b = np.eye(4) + 1
    c, loads = expect_sequence(student.tiled_matmul(a, b, 2, 2, 2), 2, what="tiled_matmul's result", hint="form")
    want = np.array([[6, 7, 8, 9], [26, 27, 28, 29], [46, 47, 48, 49], [66, 67, 68, 69]], dtype=float)
    expect_array(c, want, what="c", dtype=np.float64, hint="form", rtol=1e-9, atol=1e-9 * 69)
    expect_integer(loads, 64, what="loads", hint="form")


@check("The statement's clipped tiles: M = 5, K = 7, N = 3, tiles (2, 2, 3)", public=True, hint="clipping")
def clipped_example(student: Student) -> None:
    a = np.arange(35.0).reshape(5, 7)
    b = np.arange(21.0).reshape(7, 3)
    c, loads = expect_sequence(student.tiled_matmul(a, b, 2, 2, 3), 2, what="tiled_matmul's result", hint="form")
    want = expected_product(a, b)
    expect_array(c, want, what="c", dtype=np.float64, hint="form", **scaled_tolerance(want))
    expect_integer(loads, 133, what="loads", hint="form")


@check("The statement's tiles larger than the matrices: each element loaded once", public=True, hint="clipping")
def big_tiles(student: Student) -> None:
    a = np.arange(35.0).reshape(5, 7)
    b = np.arange(21.0).reshape(7, 3)
    c, loads = expect_sequence(student.tiled_matmul(a, b, 8, 8, 8), 2, what="tiled_matmul's result", hint="form")
    want = expected_product(a, b)
    expect_array(c, want, what="c", dtype=np.float64, hint="form", **scaled_tolerance(want))
    expect_integer(loads, 56, what="loads", hint="form")


@check("The result is a float64 array and an int", hint="form")
def result_form(student: Student, rng: np.random.Generator) -> None:
    a, b = matrices(rng, 6, 5, 4)
    got = student.tiled_matmul(a, b, 4, 3, 2)
    if not isinstance(got, (tuple, list)):
        fail(f"tiled_matmul should return a tuple (c, loads), got {describe(got)}", hint="form")
    compare(got, a, b, 4, 3, "a (6, 5) by (5, 4) product")


@check("The loads do not depend on tile_k", hint="reuse")
def loads_and_tile_k(student: Student, rng: np.random.Generator) -> None:
    a, b = matrices(rng, 9, 10, 7)
    cases = []
    for n, tile_k in enumerate((1, 2, 3, 4, 10, 17), start=1):
        cases.append(((a, b, 4, 3, tile_k), f"the same shapes, tile_m and tile_n, tile_k choice {n} of 6"))
    run(student, cases)


@check("A is reloaded for every tile of columns, B for every tile of rows", hint="reuse")
def reuse_factors(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, (M, K, N, tile_m, tile_n, tile_k) in enumerate(
        [(12, 5, 4, 2, 4, 5), (3, 6, 16, 3, 2, 2), (10, 4, 9, 5, 2, 3), (8, 3, 8, 1, 4, 1), (7, 8, 7, 7, 1, 4)],
        start=1,
    ):
        a, b = matrices(rng, M, K, N)
        cases.append(((a, b, tile_m, tile_n, tile_k), f"tall, wide and skewed shapes, case {n} of 5"))
    run(student, cases)


@check("Edge tiles are clipped, computed and counted in every dimension", hint="clipping")
def clipped_edges(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, (M, K, N, tile_m, tile_n, tile_k) in enumerate(
        [(7, 9, 5, 3, 2, 4), (5, 5, 5, 4, 4, 4), (11, 3, 6, 5, 4, 2), (4, 13, 9, 3, 8, 6), (9, 7, 10, 2, 3, 5)],
        start=1,
    ):
        a, b = matrices(rng, M, K, N)
        cases.append(((a, b, tile_m, tile_n, tile_k), f"sizes not multiples of the tiles, case {n} of 5"))
    run(student, cases)


@check("The accumulator adds every k-slice", hint="accumulate")
def accumulates(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, (M, K, N, tile_k) in enumerate([(4, 8, 4, 2), (6, 9, 3, 4), (2, 12, 5, 1), (5, 6, 6, 5)], start=1):
        a, b = matrices(rng, M, K, N)
        cases.append(((a, b, 2, 3, tile_k), f"several k-slices, case {n} of 4"))
    run(student, cases)


@check("Vectors and single elements: M, N or K equal to 1, tiles of 1", hint="clipping")
def thin_shapes(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, (M, K, N, tile_m, tile_n, tile_k) in enumerate(
        [(1, 1, 1, 1, 1, 1), (1, 8, 1, 1, 1, 3), (6, 1, 5, 2, 4, 1), (1, 7, 6, 3, 2, 2), (5, 4, 1, 2, 2, 8),
         (3, 4, 5, 1, 1, 1), (2, 3, 4, 100, 100, 100)],
        start=1,
    ):  # fmt: skip
        a, b = matrices(rng, M, K, N)
        cases.append(((a, b, tile_m, tile_n, tile_k), f"thin shapes, case {n} of 7"))
    run(student, cases)


@check("Random shapes and tiles", hint="clipping")
def random_shapes(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(1, 31):
        M, K, N = (int(x) for x in rng.integers(1, 20, size=3))
        tile_m, tile_n, tile_k = (int(x) for x in rng.integers(2, 9, size=3))
        a, b = matrices(rng, M, K, N)
        scale = 10.0 ** float(rng.integers(-3, 7))
        cases.append(((a * scale, b, tile_m, tile_n, tile_k), f"random case {n} of 30"))
    run(student, cases)


@check("a and b are left unchanged", hint="no-mutation")
def input_unchanged(student: Student, rng: np.random.Generator) -> None:
    a, b = matrices(rng, 5, 6, 4)
    # The same arrays in every call of one crossing: a call that changes them changes what the next ones see.
    cases = [((a, b, 2, 3, 4), "first call"), ((a, b, 4, 2, 3), "second call, on the same arrays"),
             ((a, b, 2, 3, 4), "third call, as the first, on the same arrays")]  # fmt: skip
    run(student, cases)
