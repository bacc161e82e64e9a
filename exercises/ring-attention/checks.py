"""Hidden checks for "Ring Attention with a Zigzag Layout".

Expected values never go around a ring. Positions come from the array_split part sizes worked out
with divmod; out and lse from ordinary attention over the whole sequence, one query at a time over
the prefix of keys it may see, in log space (np.logaddexp.reduce); work by counting, for each rank
and step, the (query, key) pairs of the two position lists whose key comes at or before the
query. A wrong answer is named by the grader, by comparing it with the exercise's mutants on the
same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail, values_shown

Case = tuple[np.ndarray, np.ndarray, np.ndarray, int, bool, str]


# --------------------------------------------------------------------------- independent expected values


def parts(n: int, k: int) -> list[list[int]]:
    """range(n) in k contiguous parts, the first n mod k of them one longer."""
    base, extra = divmod(n, k)
    out, start = [], 0
    for i in range(k):
        size = base + (1 if i < extra else 0)
        out.append(list(range(start, start + size)))
        start += size
    return out


def positions(T: int, p: int, layout: str) -> list[list[int]]:
    if layout == "contiguous":
        return parts(T, p)
    chunks = parts(T, 2 * p)
    return [chunks[r] + chunks[2 * p - 1 - r] for r in range(p)]


def attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """out and lse of whole-sequence attention, each query over the keys it may see."""
    T, d = q.shape
    out, lse = np.empty((T, v.shape[1])), np.empty(T)
    for i in range(T):
        seen = i + 1 if causal else T
        s = k[:seen] @ q[i] / np.sqrt(d)
        lse[i] = np.logaddexp.reduce(s)
        out[i] = np.exp(s - lse[i]) @ v[:seen]
    return out, lse


def work(T: int, p: int, causal: bool, layout: str) -> list[list[int]]:
    """work[r][s]: the pairs of rank r's queries and rank (r − s) mod p's keys that are allowed."""
    pos = positions(T, p, layout)
    table = []
    for r in range(p):
        row = []
        for s in range(p):
            keys = pos[(r - s) % p]
            row.append(sum(1 for i in pos[r] for j in keys if j <= i or not causal))
        table.append(row)
    return table


# --------------------------------------------------------------------------- comparing answers


def is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, bool)


def expect_positions(got: Any, want: list[list[int]], case: str) -> None:
    """A Python list of p Python lists of ints, exactly the expected positions."""
    if type(got) is not list or len(got) != len(want):
        fail(f"the positions ({case}) should be a list of {len(want)} lists, one per rank, got {describe(got)}",
             hint="form")  # fmt: skip
    for r, g in enumerate(got):
        if type(g) is not list or not all(is_int(x) for x in g):
            fail(f"the positions of rank {r} ({case}) should be a list of ints, got {describe(g)}", hint="form")
    wrong = [r for r, (g, w) in enumerate(zip(got, want, strict=True)) if [int(x) for x in g] != w]
    if wrong:
        if values_shown():
            message = f"the positions ({case}): expected {want}, got {[[int(x) for x in g] for g in got]}"
        else:
            message = f"the positions ({case}) differ for {len(wrong)} of {len(want)} ranks, first for rank {wrong[0]}"
        fail(message, hint=None, expected=want, got=got)


def expect_work(got: Any, want: list[list[int]], case: str) -> None:
    """A Python list of p Python lists of p ints, compared exactly."""
    p = len(want)
    if type(got) is not list or len(got) != p:
        fail(f"work ({case}) should be a list of {p} lists, one per rank, got {describe(got)}", hint="form")
    for r, row in enumerate(got):
        if type(row) is not list or len(row) != p or not all(is_int(x) for x in row):
            fail(f"work[{r}] ({case}) should be a list of {p} ints, one per step, got {describe(row)}", hint="form")
    wrong = [(r, s) for r in range(p) for s in range(p) if got[r][s] != want[r][s]]
    if wrong:
        if values_shown():
            message = f"work ({case}): expected {want}, got {[[int(x) for x in row] for row in got]}"
        else:
            r, s = wrong[0]
            message = f"work ({case}) differs in {len(wrong)} of {p * p} entries, first at work[{r}][{s}]"
        fail(message, hint=None, expected=want, got=got)


def expect_ring(got: Any, case: Case, what: str) -> None:
    q, k, v, p, causal, layout = case
    T = len(v)
    out, lse, table = expect_sequence(got, 3, what=f"the return value ({what})", hint="form")
    want_out, want_lse = attention(q, k, v, causal)
    for name, value, want in (("out", out, want_out), ("lse", lse, want_lse)):
        if not isinstance(value, np.ndarray) or value.dtype != np.float64 or value.shape != want.shape:
            expect_array(value, want, what=f"{name} ({what})", dtype=np.float64, hint="form")
    expect_work(table, work(T, p, causal, layout), what)
    expect_array(out, want_out, what=f"out ({what})", rtol=1e-9, atol=1e-12)
    expect_array(lse, want_lse, what=f"lse ({what})", rtol=1e-9, atol=1e-12)


def random_case(rng: np.random.Generator, T: int, p: int, d: int, d_v: int, causal: bool, layout: str) -> Case:
    return rng.normal(size=(T, d)) * 1.5, rng.normal(size=(T, d)), rng.normal(size=(T, d_v)), p, causal, layout


def label(n: int, total: int, case: Case) -> str:
    q, _, v, p, causal, layout = case
    mask = "causal" if causal else "not causal"
    return f"case {n} of {total}: T={len(q)}, p={p}, d={q.shape[1]}, d_v={v.shape[1]}, {mask}, {layout}"


def grade(student: Student, cases: list[Case]) -> None:
    results = student.ring_attention.each(cases)
    for n, (case, got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_ring(got, case, label(n, len(cases), case))


def example(T: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The statement's inputs: q and k of cosines and sines (d = 2), v counting up (d_v = 3)."""
    return (np.cos(np.arange(2.0 * T)).reshape(T, 2), np.sin(np.arange(2.0 * T)).reshape(T, 2),
            np.arange(3.0 * T).reshape(T, 3))  # fmt: skip


# Shapes (T, p, d, d_v): T rarely a multiple of p or 2p, T below 2p and below p, one rank.
SHAPES = [(12, 3, 4, 3), (13, 4, 2, 5), (7, 2, 3, 2), (5, 3, 4, 4), (9, 1, 2, 3), (20, 5, 8, 4), (2, 3, 3, 2),
          (11, 3, 5, 1)]  # fmt: skip


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement: T = 8 on two ranks, causal", public=True, points=2, hint="zigzag")
def worked_example(student: Student) -> None:
    got = student.shard_positions.each([(8, 2, "zigzag"), (8, 2, "contiguous")])
    expect_positions(got[0], [[0, 1, 6, 7], [2, 3, 4, 5]], "T=8, p=2, zigzag")
    expect_positions(got[1], [[0, 1, 2, 3], [4, 5, 6, 7]], "T=8, p=2, contiguous")
    q, k, v = example(8)
    cases = [(q, k, v, 2, True, "zigzag"), (q, k, v, 2, True, "contiguous")]
    zigzag, contiguous = student.ring_attention.each(cases)
    expect_ring(zigzag, cases[0], "T=8, p=2, causal, zigzag")
    expect_ring(contiguous, cases[1], "T=8, p=2, causal, contiguous")


@check("The statement's other examples: three ranks, no mask, an odd T", public=True, hint="zigzag")
def more_examples(student: Student) -> None:
    got = student.shard_positions.each([(12, 3, "zigzag"), (7, 2, "zigzag")])
    expect_positions(got[0], [[0, 1, 10, 11], [2, 3, 8, 9], [4, 5, 6, 7]], "T=12, p=3, zigzag")
    expect_positions(got[1], [[0, 1, 6], [2, 3, 4, 5]], "T=7, p=2, zigzag")
    q12, k12, v12 = example(12)
    q8, k8, v8 = example(8)
    cases = [(q12, k12, v12, 3, True, "zigzag"), (q8, k8, v8, 2, False, "zigzag")]
    three, unmasked = student.ring_attention.each(cases)
    expect_ring(three, cases[0], "T=12, p=3, causal, zigzag")
    expect_ring(unmasked, cases[1], "T=8, p=2, not causal, zigzag")


@check("Returns lists of lists of ints, and (out, lse, work) of the right forms", hint="form")
def result_forms(student: Student, rng: np.random.Generator) -> None:
    pos = student.shard_positions(10, 3, "zigzag")
    if type(pos) is not list or len(pos) != 3:
        fail(f"the positions (T=10, p=3) should be a list of 3 lists, one per rank, got {describe(pos)}")
    for r, g in enumerate(pos):
        if type(g) is not list or not all(is_int(x) for x in g):
            fail(f"the positions of rank {r} should be a Python list of ints, got {describe(g)}")
    q, k, v, *_ = random_case(rng, 10, 3, 4, 2, True, "zigzag")
    out, lse, table = expect_sequence(student.ring_attention(q, k, v, 3, True, "zigzag"), 3, what="the return value")
    for name, value, shape in (("out", out, (10, 2)), ("lse", lse, (10,))):
        if not isinstance(value, np.ndarray) or value.dtype != np.float64 or value.shape != shape:
            fail(f"{name} (T=10, d_v=2) should be a float64 array of shape {shape}, got {describe(value)}")
    if type(table) is not list or len(table) != 3:
        fail(f"work (p=3) should be a list of 3 lists, one per rank, got {describe(table)}")
    for r, row in enumerate(table):
        if type(row) is not list or len(row) != 3 or not all(is_int(x) for x in row):
            fail(f"work[{r}] (p=3) should be a list of 3 ints, one per step, got {describe(row)}")


@check("Both layouts, for T not a multiple of p or 2p, and ranks left empty", hint="zigzag")
def layouts(student: Student) -> None:
    cases = [(10, 3, "contiguous"), (10, 3, "zigzag"), (5, 3, "zigzag"), (2, 3, "contiguous"), (2, 3, "zigzag"),
             (1, 1, "zigzag"), (9, 1, "contiguous"), (9, 1, "zigzag"), (13, 4, "zigzag"), (17, 5, "contiguous"),
             (6, 4, "zigzag"), (3, 5, "contiguous"), (23, 3, "zigzag")]  # fmt: skip
    results = student.shard_positions.each(cases)
    for n, ((T, p, layout), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_positions(got, positions(T, p, layout), f"case {n} of {len(cases)}: T={T}, p={p}, {layout}")


@check("Causal attention over a zigzag ring", hint="causal-global")
def causal_zigzag(student: Student, rng: np.random.Generator) -> None:
    grade(student, [random_case(rng, *shape, True, "zigzag") for shape in SHAPES])


@check("Causal attention over contiguous shards", hint="causal-global")
def causal_contiguous(student: Student, rng: np.random.Generator) -> None:
    grade(student, [random_case(rng, *shape, True, "contiguous") for shape in SHAPES])


@check("Attention without a mask, both layouts", hint="ring-order")
def not_causal(student: Student, rng: np.random.Generator) -> None:
    cases = [random_case(rng, *shape, False, layout) for shape in SHAPES[:5] for layout in ("zigzag", "contiguous")]
    grade(student, cases)


@check("Scores of several hundred, positive and negative, do not overflow", hint="stable")
def large_scores(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for T, p, layout in ((9, 3, "zigzag"), (8, 2, "contiguous")):
        for causal in (True, False):
            q, k, v, *_ = random_case(rng, T, p, 4, 3, causal, layout)
            k[:, 0] = 2.0  # = √d, so q[i, 0] is added to every score of query i
            q[:, 0] = rng.choice([-900.0, -760.0, 720.0, 880.0], size=T)
            cases.append((q, k, v, p, causal, layout))
    q, k, v, *_ = random_case(rng, 10, 3, 4, 3, True, "zigzag")
    cases.append((q * 60.0, k, v, 3, True, "zigzag"))  # scores spread over hundreds: the max jumps from step to step
    grade(student, cases)


@check("q, k and v are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    case = random_case(rng, 10, 3, 4, 2, True, "zigzag")
    # The same arrays for two calls in one crossing: a call that changes them changes what the
    # second call sees.
    first, second = student.ring_attention.each([case, case])
    expect_ring(first, case, "the first of two calls on the same arrays")
    expect_ring(second, case, "the second of two calls on the same arrays")
