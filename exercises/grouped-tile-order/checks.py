"""Checks for "Grouped Launch Order for a Matmul".

The expected order is built here group by group, with nested loops (for each group of rows, for
each column, for each row of the group), never from the pid formulas; the expected traffic counts
a panel's rows as the length of the range of rows it covers inside the matrix, with panels
found by np.unique over each wave. The statement's examples are also worked out by hand. A wrong
answer is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_integer, fail, values_shown

# --------------------------------------------------------------------------- independent reference


def expected_order(num_pid_m: int, num_pid_n: int, group_m: int) -> list[tuple[int, int]]:
    order = []
    for first in range(0, num_pid_m, group_m):
        rows = range(first, min(first + group_m, num_pid_m))
        for pid_n in range(num_pid_n):
            order.extend((pid_m, pid_n) for pid_m in rows)
    return order


def expected_bytes(
    m: int, n: int, k: int, block_m: int, block_n: int, group_m: int, wave: int, dtype_bytes: int
) -> int:
    tiles = np.array(expected_order(len(range(0, m, block_m)), len(range(0, n, block_n)), group_m), dtype=np.int64)
    total = 0
    for start in range(0, len(tiles), wave):
        running = tiles[start : start + wave]
        rows = sum(len(range(p * block_m, min(m, (p + 1) * block_m))) for p in np.unique(running[:, 0]).tolist())
        cols = sum(len(range(p * block_n, min(n, (p + 1) * block_n))) for p in np.unique(running[:, 1]).tolist())
        total += (rows + cols) * k * dtype_bytes
    return total


# --------------------------------------------------------------------------- comparing answers


def compare_order(got: Any, want: list[tuple[int, int]], what: str) -> None:
    """A list of (pid_m, pid_n) pairs, tuples or lists of two ints, then the pairs themselves, entry by entry."""
    if type(got) is not list:
        fail(f"{what} should be a list of (pid_m, pid_n) tuples, got {describe(got)}", hint="form")
    for pid, pair in enumerate(got):
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            fail(f"{what}: entry {pid} should be a tuple (pid_m, pid_n), got {describe(pair)}", hint="form")
        if any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) for x in pair):
            fail(f"{what}: entry {pid} should hold two ints, got {describe(pair)}", hint="form")
    pairs = [(int(a), int(b)) for a, b in got]
    if len(pairs) != len(want):
        fail(f"{what} should have {len(want):,} entries, one per pid, got {len(pairs):,}", hint=None, expected=want,
             got=got)  # fmt: skip
    wrong = [pid for pid, (a, b) in enumerate(zip(pairs, want, strict=True)) if a != b]
    if wrong:
        pid = wrong[0]
        shown = f": expected {want[pid]}, got {pairs[pid]}" if values_shown() else ""
        fail(f"{what}: entry {pid} is not the expected tile{shown} ({len(wrong):,} of {len(want):,} entries differ)",
             hint=None, expected=want, got=got)  # fmt: skip


def run_orders(student: Student, cases: list[tuple[tuple[int, int, int], str]]) -> None:
    results = student.tile_order.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        compare_order(got, expected_order(*(int(x) for x in args)), what)


def run_bytes(student: Student, cases: list[tuple[tuple[int, ...], str]]) -> None:
    results = student.dram_bytes.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        expect_integer(got, expected_bytes(*(int(x) for x in args)), what=what, hint="form")


# --------------------------------------------------------------------------- the checks


@check("The statement's orders: tile_order(4, 4, 2) and tile_order(5, 3, 2)", public=True, points=2, hint="in-group")
def order_examples(student: Student) -> None:
    four = [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (0, 3), (1, 3),
            (2, 0), (3, 0), (2, 1), (3, 1), (2, 2), (3, 2), (2, 3), (3, 3)]  # fmt: skip
    five = [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2),
            (2, 0), (3, 0), (2, 1), (3, 1), (2, 2), (3, 2), (4, 0), (4, 1), (4, 2)]  # fmt: skip
    first, second = student.tile_order.each([(4, 4, 2), (5, 3, 2)])
    compare_order(first, four, "the order of 4 × 4 tiles in groups of 2 rows")
    compare_order(second, five, "the order of 5 × 3 tiles in groups of 2 rows")


@check(
    "The statement's traffic: 512 × 512 × 256 row-major and grouped, and 300 × 200 × 10", public=True, hint="per-wave"
)
def bytes_examples(student: Student) -> None:
    cases = [
        ((512, 512, 256, 128, 128, 1, 4, 2), 1_310_720, "512 × 512 × 256, row-major (group_m 1)"),
        ((512, 512, 256, 128, 128, 2, 4, 2), 1_048_576, "512 × 512 × 256, grouped (group_m 2)"),
        ((300, 200, 10, 128, 128, 2, 3, 1), 8280, "300 × 200 × 10, edge panels and a one-row group"),
    ]
    for (_, want, what), got in zip(cases, student.dram_bytes.each([args for args, *_ in cases]), strict=True):
        expect_integer(got, want, what=f"dram_bytes, {what}", hint="form")


@check("The order is a list of tuples of two ints, also for numpy arguments", hint="form")
def order_form(student: Student) -> None:
    cases = [
        ((3, 4, 2), "a grid with a short last group"),
        ((np.int64(5), np.int64(2), np.int64(3)), "numpy arguments"),
        ((1, 1, 1), "a single tile"),
    ]
    run_orders(student, cases)


@check("group_m = 1 is row-major; group_m at least num_pid_m is column-major", hint="in-group")
def row_and_column_major(student: Student) -> None:
    cases = [
        ((3, 5, 1), "groups of one row: row-major"),
        ((4, 3, 4), "group_m equal to the rows of tiles: column-major"),
        ((3, 4, 7), "group_m beyond the rows of tiles: column-major"),
        ((1, 6, 2), "a single row of tiles"),
        ((6, 1, 4), "a single column of tiles"),
    ]
    run_orders(student, cases)


@check("A last group shorter than group_m holds only the rows left", hint="group-size")
def short_last_group(student: Student) -> None:
    cases = [
        ((7, 3, 3), "a last group of one row"),
        ((5, 4, 4), "a last group of one row, long groups"),
        ((9, 2, 5), "a last group one row short"),
        ((10, 5, 4), "a last group of two rows"),
        ((3, 6, 2), "two groups, the second of one row, a wide grid"),
    ]
    run_orders(student, cases)


@check("Random grids and groups", hint="in-group")
def random_orders(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(1, 31):
        num_pid_m, num_pid_n = (int(x) for x in rng.integers(1, 13, size=2))
        group_m = int(rng.integers(1, num_pid_m + 3))
        cases.append(((num_pid_m, num_pid_n, group_m), f"random grid {n} of 30"))
    run_orders(student, cases)


@check("Edge panels hold only the rows and columns inside the matrix", hint="edge-panels")
def edge_panels(student: Student) -> None:
    cases = [
        ((129, 64, 8, 64, 64, 2, 4, 2), "one row just past a block"),
        ((100, 300, 16, 64, 128, 2, 4, 4), "partial last row and column of tiles"),
        ((50, 70, 3, 64, 64, 1, 1, 1), "a matrix smaller than one block"),
        ((255, 257, 5, 128, 64, 3, 5, 2), "edges on both sides, group_m beyond the rows"),
        ((96, 96, 7, 32, 40, 2, 3, 1), "a partial last column only"),
        (tuple(np.int64(x) for x in (200, 90, 12, 64, 32, 3, 5, 2)), "numpy arguments"),
    ]
    run_bytes(student, [(args, f"dram_bytes, {what}") for args, what in cases])


@check("Each wave loads its distinct panels once; nothing is kept between waves", hint="per-wave")
def waves(student: Student) -> None:
    cases = [
        ((512, 512, 64, 128, 128, 2, 1, 2), "waves of one program"),
        ((512, 384, 64, 128, 128, 2, 12, 2), "one wave for every program"),
        ((512, 384, 64, 128, 128, 2, 40, 2), "a wave larger than the grid"),
        ((512, 384, 64, 128, 128, 2, 5, 2), "waves that do not divide the programs: the last is shorter"),
        ((768, 512, 32, 128, 128, 3, 6, 2), "waves of a group's rows by two columns"),
        ((768, 512, 32, 128, 128, 3, 7, 2), "waves that straddle two groups"),
        ((1024, 1024, 16, 128, 128, 4, 8, 1), "a square grid in several groups, waves of two columns"),
        ((1024, 1024, 16, 128, 128, 8, 8, 1), "a square grid, column-major, waves of one column"),
    ]
    run_bytes(student, [(args, f"dram_bytes, {what}") for args, what in cases])


@check("Random shapes, blocks, groups and waves", hint="per-wave")
def random_bytes(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(1, 31):
        block_m, block_n = (int(x) for x in rng.choice([16, 32, 48, 64, 128], size=2))
        m = int(rng.integers(1, 10 * block_m))
        n_ = int(rng.integers(1, 10 * block_n))
        k = int(rng.integers(1, 300))
        group_m = int(rng.integers(1, 6))
        wave = int(rng.integers(1, 20))
        dtype_bytes = int(rng.choice([1, 2, 4]))
        cases.append(((m, n_, k, block_m, block_n, group_m, wave, dtype_bytes), f"dram_bytes, random case {n} of 30"))
    run_bytes(student, cases)
