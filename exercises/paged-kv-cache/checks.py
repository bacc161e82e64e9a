"""Hidden checks for "A Paged KV Cache".

Each scenario starts from a contiguous sequence: its keys and values as (T, d) arrays. The checks
scatter them into pools full of other rows through a block table of their choosing, and compute
the expected attention from the contiguous arrays, never by reading pages. Expected appends come
from the state after t tokens in closed form (the first ⌈t / B⌉ pages of the free list, in
order, and every token's row at its place), not by growing a table step by step. A wrong answer
is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail, values_shown

# --------------------------------------------------------------------------- independent reference


def attention(q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
    s = K @ q / np.sqrt(len(q))
    return np.exp(s - np.logaddexp.reduce(s)) @ V


def scatter(pool: np.ndarray, rows: np.ndarray, table: list[int]) -> np.ndarray:
    """A copy of ``pool`` with row i of ``rows`` at page table[i // B], row i % B."""
    out = pool.copy()
    B = pool.shape[1]
    for i, row in enumerate(rows):
        page, slot = divmod(i, B)
        out[table[page], slot] = row
    return out


def pages_needed(n: int, B: int) -> int:
    return -(-n // B)


# --------------------------------------------------------------------------- talking to the solution


def expect_blocks(got: Any, want: list[int], what: str) -> None:
    """A list (or tuple, or 1-D integer array) of ints equal to ``want``."""
    if isinstance(got, np.ndarray) and got.ndim == 1 and got.dtype.kind in "iu":
        got = got.tolist()
    ints = isinstance(got, (list, tuple)) and all(
        isinstance(b, (int, np.integer)) and not isinstance(b, bool) for b in got
    )
    if not ints:
        fail(f"{what} should be a list of ints, got {describe(got)}", hint="shape")
    blocks = [int(b) for b in got]
    if blocks == want:
        return
    if values_shown():
        message = f"{what}: expected {want}, got {blocks}"
    elif len(blocks) != len(want):
        numbers = "page number" if len(blocks) == 1 else "page numbers"
        were = "was" if len(want) == 1 else "were"
        message = f"{what} holds {len(blocks)} {numbers} where {len(want)} {were} expected"
    else:  # the page numbers are the check's: a hidden check says only where they differ
        wrong = [i for i, (b, w) in enumerate(zip(blocks, want, strict=True)) if b != w]
        message = (
            f"{what} differs from the expected page numbers: first at position {wrong[0]}; "
            f"{len(wrong)} of {len(want)} differ"
        )
    fail(message, hint=None, expected=want, got=got)


def expect_append(result: Any, pages: np.ndarray, table: list[int], free: list[int], what: str) -> None:
    """(new_pages, new_block_table, new_free_blocks), each as expected."""
    new_pages, new_table, new_free = expect_sequence(result, 3, what=f"paged_append's return value ({what})",
                                                     hint="shape")  # fmt: skip
    expect_blocks(new_table, table, f"new_block_table ({what})")
    expect_blocks(new_free, free, f"new_free_blocks ({what})")
    expect_array(new_pages, pages, what=f"new_pages ({what})", rtol=0, atol=0, hint="shape")


def garbage_pool(rng: np.random.Generator, N: int, B: int, d: int) -> np.ndarray:
    """A pool full of other sequences' rows, larger than the sequence's own: they must not be read."""
    return rng.normal(0, 3, size=(N, B, d))


# --------------------------------------------------------------------------- the checks


def worked_pools() -> tuple[np.ndarray, np.ndarray]:
    K = np.zeros((4, 2, 2))
    V = np.zeros((4, 2, 2))
    K[0], V[0] = [[1, 1], [5, 5]], [[1, 2], [9, 9]]
    K[1], V[1] = [[3, -3], [-3, 3]], [[4, 4], [4, 4]]
    K[2], V[2] = [[1, 0], [0, 1]], [[1, 0], [0, 2]]
    return K, V


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    K, V = worked_pools()
    keys, values = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 2.0]])
    out = student.paged_attend(np.array([1.0, 1.0]), K, V, [2, 0], 3)
    expect_array(out, attention(np.array([1.0, 1.0]), keys, values), what="out (worked example)", hint="shape")

    key3, value3, key4, value4 = np.array([[2.0, 0.0], [2.0, 2.0], [0.0, 2.0], [3.0, 1.0]])
    K3, V3 = scatter(K, np.vstack([keys, key3]), [2, 0]), scatter(V, np.vstack([values, value3]), [2, 0])
    K4 = scatter(K3, np.vstack([keys, key3, key4]), [2, 0, 3])
    V4 = scatter(V3, np.vstack([values, value3, value4]), [2, 0, 3])
    calls = [(K, [2, 0], 3, key3, [3]), (V, [2, 0], 3, value3, [3]), (K3, [2, 0], 4, key4, [3]),
             (V3, [2, 0], 4, value4, [3])]  # fmt: skip
    expected = [
        (K3, [2, 0], [3], "appending token 3's key"),
        (V3, [2, 0], [3], "appending token 3's value"),
        (K4, [2, 0, 3], [], "appending token 4's key"),
        (V4, [2, 0, 3], [], "appending token 4's value, with the same table and free list"),
    ]
    for (pages, table, free, what), result in zip(expected, student.paged_append.each(calls), strict=True):
        expect_append(result, pages, table, free, what)


@check("paged_attend returns a vector of shape (d,)", hint="shape")
def attend_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    N, B, d = 5, 4, 3
    K, V = garbage_pool(rng, N, B, d), garbage_pool(rng, N, B, d)
    out = student.paged_attend(rng.normal(size=d), K, V, [3, 1], 6)
    if not isinstance(out, np.ndarray) or out.shape != (d,) or out.dtype != np.float64:
        fail(f"out should be a float64 array of d = {d} numbers, shape ({d},), got {describe(out)}", hint="shape")


def attend_cases(rng: np.random.Generator, shapes: list[tuple[int, int, int, int]], scale: float) -> list[Any]:
    """For each (d, B, T, N): a query, pools holding a T-token sequence among other rows, and its table."""
    cases = []
    for d, B, T, N in shapes:
        table = [int(b) for b in rng.permutation(N)[: pages_needed(T, B)]]
        keys, values = rng.normal(size=(T, d)) * scale, rng.normal(size=(T, d))
        K = scatter(garbage_pool(rng, N, B, d) * scale, keys, table)
        V = scatter(garbage_pool(rng, N, B, d), values, table)
        q = rng.normal(size=d) * scale
        cases.append((q, K, V, table, T, attention(q, keys, values), f"d={d}, B={B}, {T} tokens, {len(table)} pages"))
    return cases


@check("paged_attend matches attention over a contiguous cache, for many block sizes and lengths", hint="shape")
def attend_matches_contiguous(student: Student) -> None:
    rng = np.random.default_rng(2)
    shapes = [(4, 4, 10, 7), (3, 3, 9, 5), (2, 1, 6, 9), (5, 16, 1, 3), (8, 5, 23, 12), (6, 7, 7, 2),
              (4, 2, 3, 4), (3, 4, 8, 3), (16, 8, 61, 11)]  # fmt: skip
    cases = attend_cases(rng, shapes, scale=1.0)
    results = student.paged_attend.each([(q, K, V, table, T) for q, K, V, table, T, *_ in cases])
    for (*_, want, what), out in zip(cases, results, strict=True):
        expect_array(out, want, what=f"out ({what})", hint="shape")


@check("paged_attend does not overflow on large scores", hint="stable-softmax")
def attend_large_scores(student: Student) -> None:
    rng = np.random.default_rng(3)
    cases = attend_cases(rng, [(4, 4, 10, 6), (8, 3, 5, 4)], scale=40.0)  # scores in the thousands
    results = student.paged_attend.each([(q, K, V, table, T) for q, K, V, table, T, *_ in cases])
    for (*_, want, what), out in zip(cases, results, strict=True):
        expect_array(out, want, what=f"out ({what}, large scores)", hint="shape")


@check("paged_append grows sequences token by token from an empty table", hint="shape")
def append_grows(student: Student) -> None:
    rng = np.random.default_rng(4)
    plans, calls = [], []
    for B, d, T, N in ((4, 3, 11, 6), (1, 2, 4, 6), (8, 2, 3, 3), (3, 4, 9, 5)):
        pool = garbage_pool(rng, N, B, d)
        free = [int(b) for b in rng.permutation(N)]
        rows = rng.normal(size=(T, d))
        for t in range(T):
            used = pages_needed(t, B)
            state = scatter(pool, rows[:t], free[:used])
            calls.append((state, free[:used], t, rows[t], free[used:]))
            after = pages_needed(t + 1, B)
            want = (scatter(pool, rows[: t + 1], free[:after]), free[:after], free[after:])
            plans.append((want, f"B={B}, appending token {t} to a table of {used} page{'' if used == 1 else 's'}"))
    for ((pages, table, free), what), result in zip(plans, student.paged_append.each(calls), strict=True):
        expect_append(result, pages, table, free, what)


@check("Keys and values: two pools appended with one table and one free list", hint="no-mutation")
def append_two_pools(student: Student) -> None:
    rng = np.random.default_rng(5)
    N, B, d = 6, 2, 3
    K, V = garbage_pool(rng, N, B, d), garbage_pool(rng, N, B, d)
    table, free = [4, 1], [2, 5, 0]
    k4, v4, k3 = rng.normal(size=d), rng.normal(size=d), rng.normal(size=d)
    # One table, one free list and one key pool for three calls in one crossing, as a decoder
    # makes them: token 4's key, then its value, then (replayed) token 3's key into the same key
    # pool. A call that changes its arguments changes what the later ones see.
    calls = [(K, table, 4, k4, free), (V, table, 4, v4, free), (K, table, 3, k3, free)]
    K4, V4, K3 = K.copy(), V.copy(), K.copy()
    K4[2, 0], V4[2, 0], K3[1, 1] = k4, v4, k3
    expected = [
        (K4, [4, 1, 2], [5, 0], "token 4's key: the last page is full"),
        (V4, [4, 1, 2], [5, 0], "token 4's value, with the same table and free list"),
        (K3, [4, 1], [2, 5, 0], "token 3's key, with the same table, free list and key pool"),
    ]
    for (pages, want_table, want_free, what), result in zip(expected, student.paged_append.each(calls), strict=True):
        expect_append(result, pages, want_table, want_free, what)
