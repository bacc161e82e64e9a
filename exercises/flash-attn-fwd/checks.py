"""Checks for "FlashAttention Forward: Tiles, Causal Skipping and the Log-Sum-Exp".

The expected values are computed here by another route than a solution's: o and lse row by row,
over the slice of keys each query sees (one log-sum-exp of the whole row, no tiles, no running
state), and n_tiles as the number of distinct (i // block_q, j // block_k) pairs among the visible
(i, j), read off the full visibility matrix. A wrong answer is named by the grader, by comparing it
with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import (
    CheckFailed,
    Student,
    check,
    expect_array,
    expect_integer,
    expect_sequence,
    fail,
    scaled_tolerance,
)

Result = tuple[np.ndarray, np.ndarray, int]
Case = tuple[np.ndarray, np.ndarray, np.ndarray, int, int, bool]

# --------------------------------------------------------------------------- independent expected values


def seen(i: int, Tq: int, Tk: int, causal: bool) -> int:
    """How many keys query i sees: the first i + 1 + (Tk − Tq) when causal, else all of them."""
    return min(Tk, i + 1 + Tk - Tq) if causal else Tk


def visible(Tq: int, Tk: int, causal: bool) -> np.ndarray:
    return np.array([[j < seen(i, Tq, Tk, causal) for j in range(Tk)] for i in range(Tq)])


def tiles(Tq: int, Tk: int, block_q: int, block_k: int, causal: bool) -> int:
    pairs = np.argwhere(visible(Tq, Tk, causal))
    return len({(int(i) // block_q, int(j) // block_k) for i, j in pairs})


def expected(q: np.ndarray, k: np.ndarray, v: np.ndarray, block_q: int, block_k: int, causal: bool) -> Result:
    Tq, d = q.shape
    Tk = k.shape[0]
    o, lse = np.zeros((Tq, v.shape[1])), np.zeros(Tq)
    for i in range(Tq):
        n = seen(i, Tq, Tk, causal)
        scores = k[:n] @ q[i] / np.sqrt(d)
        lse[i] = np.logaddexp.reduce(scores)
        o[i] = np.exp(scores - lse[i]) @ v[:n]
    return o, lse, tiles(Tq, Tk, int(block_q), int(block_k), causal)


# --------------------------------------------------------------------------- comparing answers


def expect_result(got: Any, want: Result, what: str) -> None:
    """The form first (a float64 o and lse of the right shapes, an int), then o, lse and n_tiles."""
    o_want, lse_want, tiles_want = want
    o, lse, n_tiles = expect_sequence(got, 3, what=f"{what}: the return value", hint="form")
    for name, part, w in (("o", o, o_want), ("lse", lse, lse_want)):
        if not isinstance(part, np.ndarray) or part.dtype != np.float64 or part.shape != w.shape:
            expect_array(part, w, what=f"{what}: {name}", dtype=np.float64, hint="form")
    if isinstance(n_tiles, bool) or not isinstance(n_tiles, (int, np.integer)):
        expect_integer(n_tiles, tiles_want, what=f"{what}: n_tiles", hint="form")
    expect_array(lse, lse_want, what=f"{what}: lse", **scaled_tolerance(lse_want))
    expect_array(o, o_want, what=f"{what}: o", **scaled_tolerance(o_want))
    expect_integer(n_tiles, tiles_want, what=f"{what}: n_tiles")


def random_case(rng: np.random.Generator, Tq: int, Tk: int, d: int, dv: int, block_q: int, block_k: int,
                causal: bool, spread: float = 1.5) -> Case:  # fmt: skip
    q = rng.normal(size=(Tq, d)) * spread
    return q, rng.normal(size=(Tk, d)), rng.normal(size=(Tk, dv)), block_q, block_k, causal


def grade(student: Student, cases: list[tuple[Case, str]]) -> None:
    """Every case in one crossing, then each answer against its expected values."""
    results = student.flash_attention_fwd.each([case for case, _ in cases])
    for n, ((case, kind), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_result(got, expected(*case), f"case {n} of {len(cases)} ({kind})")


# --------------------------------------------------------------------------- the worked examples


@check("The statement's example: one query, two keys, causal or not, in either order", public=True, points=2,
       hint="lse")  # fmt: skip
def worked_example_values(student: Student) -> None:
    q = np.array([[2.0, 0.0, 0.0, 0.0]])
    k = np.array([[np.log(3.0), 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    v = np.array([[1.0, 0.0], [0.0, 1.0]])
    want = (np.array([[0.75, 0.25]]), np.array([np.log(4.0)]), 2)
    plain, causal, growing = student.flash_attention_fwd.each([
        (q, k, v, 1, 1, False),
        (q, k, v, 1, 1, True),
        (q, k[::-1], v[::-1], 1, 1, False),
    ])  # fmt: skip
    expect_result(plain, want, "not causal")
    expect_result(causal, want, "causal (the one query is the last token and sees both keys)")
    expect_result(growing, want, "the keys in the other order: the maximum grows at the second tile")


@check("The statement's tile counts: blocks 2 × 2 causal or not, 1 × 2 causal, and fewer queries than keys",
       public=True, points=2, hint="tile-skip")  # fmt: skip
def worked_example_tiles(student: Student) -> None:
    zeros, values = np.zeros((4, 2)), np.array([[1.0], [3.0], [5.0], [7.0]])
    six = np.array([[1.0], [3.0], [5.0], [7.0], [9.0], [11.0]])
    causal, plain, narrow, cache = student.flash_attention_fwd.each([
        (zeros, zeros, values, 2, 2, True),
        (zeros, zeros, values, 2, 2, False),
        (zeros, zeros, values, 1, 2, True),
        (np.zeros((2, 2)), np.zeros((6, 2)), six, 1, 2, True),
    ])  # fmt: skip
    running = np.array([[1.0], [2.0], [3.0], [4.0]])
    expect_result(causal, (running, np.log([1.0, 2.0, 3.0, 4.0]), 3), "blocks 2 × 2, causal")
    expect_result(plain, (np.full((4, 1), 4.0), np.full(4, np.log(4.0)), 4), "blocks 2 × 2, not causal")
    expect_result(narrow, (running, np.log([1.0, 2.0, 3.0, 4.0]), 6), "blocks 1 × 2, causal")
    expect_result(cache, (np.array([[5.0], [6.0]]), np.log([5.0, 6.0]), 6), "2 queries after 4 cached keys")


# --------------------------------------------------------------------------- the hidden checks


@check("Returns a float64 o and lse of the right shapes and an int n_tiles", hint="form")
def result_form(student: Student, rng: np.random.Generator) -> None:
    q, k, v, bq, bk, causal = random_case(rng, 3, 5, 4, 2, 2, 2, False)
    o, lse, n_tiles = expect_sequence(student.flash_attention_fwd(q, k, v, bq, bk, causal), 3, what="the return value")
    for name, part, shape in (("o (Tq = 3, dv = 2)", o, (3, 2)), ("lse (Tq = 3)", lse, (3,))):
        if not isinstance(part, np.ndarray) or part.dtype != np.float64 or part.shape != shape:
            expect_array(part, np.zeros(shape), what=name, dtype=np.float64)
    if isinstance(n_tiles, bool) or not isinstance(n_tiles, (int, np.integer)):
        expect_integer(n_tiles, 6, what="n_tiles")


@check("Without a mask: more queries than keys, fewer, as many; blocks that do not divide them", hint="stable")
def full_attention(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (random_case(rng, 5, 7, 4, 3, 2, 3, False), "blocks that divide neither size"),
        (random_case(rng, 8, 8, 8, 4, 4, 4, False), "square blocks"),
        (random_case(rng, 6, 3, 2, 5, 4, 1, False), "more queries than keys"),
        (random_case(rng, 1, 9, 4, 2, 1, 2, False), "one query"),
        (random_case(rng, 4, 10, 3, 3, 8, 16, False), "blocks larger than the sizes"),
        (random_case(rng, 7, 12, 16, 4, 3, 5, False, spread=3.0), "wide scores"),
        (random_case(rng, 3, 1, 2, 2, 2, 1, False), "a single key"),
    ]
    grade(student, cases)


@check("Causal with as many queries as keys, for many block shapes", hint="causal")
def causal_square(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (random_case(rng, 6, 6, 4, 3, 2, 2, True), "square blocks"),
        (random_case(rng, 7, 7, 2, 2, 3, 2, True), "taller query blocks"),
        (random_case(rng, 8, 8, 4, 5, 1, 3, True), "one query per block"),
        (random_case(rng, 5, 5, 8, 2, 2, 4, True), "wider key blocks"),
        (random_case(rng, 9, 9, 2, 3, 4, 1, True), "one key per block"),
        (random_case(rng, 4, 4, 4, 2, 8, 8, True), "blocks larger than the sizes"),
        (random_case(rng, 1, 1, 3, 2, 1, 1, True), "one query, one key"),
    ]
    grade(student, cases)


@check("Causal with fewer queries than keys: the mask is aligned bottom-right", hint="causal")
def causal_with_cache(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (random_case(rng, 3, 7, 4, 3, 1, 2, True), "one query per block"),
        (random_case(rng, 4, 9, 2, 2, 2, 3, True), "blocks of 2 queries and 3 keys"),
        (random_case(rng, 1, 6, 4, 2, 1, 4, True), "one query: it sees every key"),
        (random_case(rng, 5, 12, 8, 4, 3, 2, True), "taller query blocks"),
        (random_case(rng, 2, 11, 2, 3, 2, 5, True), "two queries after many cached keys"),
        (random_case(rng, 6, 8, 4, 2, 4, 4, True), "square blocks"),
    ]
    grade(student, cases)


@check("n_tiles counts exactly the tiles holding a visible pair", hint="tile-count")
def tile_counts(student: Student, rng: np.random.Generator) -> None:
    shapes = [
        (12, 12, 3, 2, True, "query blocks of 3, key blocks of 2"),
        (10, 10, 2, 3, True, "query blocks of 2, key blocks of 3"),
        (12, 12, 4, 4, True, "square blocks"),
        (5, 13, 2, 3, True, "fewer queries than keys"),
        (3, 16, 1, 4, True, "a few queries after a long cache"),
        (9, 14, 4, 3, True, "blocks that divide neither size"),
        (11, 7, 3, 2, False, "not causal"),
        (6, 6, 7, 1, True, "one query block"),
    ]
    cases = [(random_case(rng, Tq, Tk, 2, 1, bq, bk, causal), kind) for Tq, Tk, bq, bk, causal, kind in shapes]
    grade(student, cases)


def ramp(rng: np.random.Generator, Tq: int, Tk: int, block_q: int, block_k: int, causal: bool, step: float) -> Case:
    """Every query's scores grow by about ``step`` per key, so each new key block raises every row's max."""
    q, k, v, *_ = random_case(rng, Tq, Tk, 4, 3, block_q, block_k, causal, spread=0.3)
    q[:, 0] = 2.0  # scores s_ij ≈ k_j0 (d = 4, so / √d halves 2·k_j0)
    k[:, 0] = step * np.arange(Tk) + rng.normal(size=Tk) * 0.2
    return q, k, v, block_q, block_k, causal


@check("Each key block raises every row's maximum", hint="rescale")
def growing_max(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (ramp(rng, 4, 9, 2, 3, False, 0.5), "a slow rise"),
        (ramp(rng, 6, 8, 3, 2, True, 1.0), "causal, a steady rise"),
        (ramp(rng, 5, 10, 5, 1, False, 2.0), "a steep rise, one key per block"),
        (ramp(rng, 3, 12, 1, 4, True, 0.8), "causal, fewer queries than keys"),
    ]
    grade(student, cases)


@check("Scores in the thousands, and thousands apart from one row to the next", hint="stable")
def large_scores(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for Tq, Tk, bq, bk, causal, kind in ((5, 7, 2, 3, False, "not causal"), (6, 6, 4, 2, True, "causal"),
                                         (3, 8, 1, 3, True, "causal, fewer queries than keys")):  # fmt: skip
        q, k, v, *_ = random_case(rng, Tq, Tk, 4, 3, bq, bk, causal)
        scores = q @ k.T / 2.0
        q = q * (3000.0 / np.abs(scores).max())  # the largest score ±3000
        q[::2] *= -1.0  # every other row of scores flipped: rows thousands apart
        cases.append(((q, k, v, bq, bk, causal), kind))
    grade(student, cases)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    case = random_case(rng, 5, 7, 4, 3, 2, 3, True)
    want = expected(*case)
    # The same arrays for two calls: a call that changes them changes the second answer.
    first, second = student.flash_attention_fwd.each([case, case])
    expect_result(first, want, "the first of two calls on the same arrays")
    try:
        expect_result(second, want, "the second of two calls on the same arrays")
    except CheckFailed:
        fail("flash_attention_fwd gives another answer when called again on the same arrays: the first call changed "
             "its inputs", hint="no-mutation")  # fmt: skip
