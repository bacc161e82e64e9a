"""Hidden checks for "Ulysses: Sequence Parallelism by All-to-All".

Expected values never go through an all-to-all. A rank's head layout is the whole sequence (the
shards stacked) sliced to its block of heads; the output is ordinary multi-head attention over the
whole sequence, one query at a time over the prefix of keys it may see, normalised in log space,
then cut back to each rank's tokens; and what each rank sends is counted piece by piece, over
every ordered pair of ranks. A wrong answer is named by the grader, by comparing it with the
exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail, values_shown

Shards = list[np.ndarray]
Case = tuple[Shards, Shards, Shards, bool]


# --------------------------------------------------------------------------- independent expected values


def bounds(n: int, p: int) -> list[tuple[int, int]]:
    """The array_split layout of n items over p parts, as (start, stop) pairs: larger parts first."""
    base, extra = divmod(n, p)
    out, start = [], 0
    for i in range(p):
        stop = start + base + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out


def cut(full: np.ndarray, p: int) -> Shards:
    """The sequence shards of a (T, H, d) array: views of it, so a batch sends it once."""
    return [full[start:stop] for start, stop in bounds(len(full), p)]


def expected_heads(full: np.ndarray, p: int) -> Shards:
    return [full[:, start:stop, :] for start, stop in bounds(full.shape[1], p)]


def full_attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> np.ndarray:
    """Multi-head attention over the whole (T, H, d) sequence, row by row over the keys each query sees."""
    T, H, d = q.shape
    out = np.empty_like(v)
    for h in range(H):
        for i in range(T):
            seen = i + 1 if causal else T
            s = k[:seen, h] @ q[i, h] / np.sqrt(d)
            out[i, h] = np.exp(s - np.logaddexp.reduce(s)) @ v[:seen, h]
    return out


def expected_sent(T: int, H: int, d: int, p: int) -> list[int]:
    """Every piece that crosses from one rank to another, counted at its sender."""
    tokens = [stop - start for start, stop in bounds(T, p)]
    heads = [stop - start for start, stop in bounds(H, p)]
    sent = [0] * p
    for r in range(p):
        for j in range(p):
            if r != j:
                sent[r] += 3 * tokens[r] * heads[j] * d  # q, k and v of r's tokens, for j's heads
                sent[j] += tokens[r] * heads[j] * d  # the output of j's heads, for r's tokens
    return sent


# --------------------------------------------------------------------------- comparing answers


def expect_arrays(got: Any, wants: Shards, name: str, case: str, shape_hint: str) -> None:
    """A Python list of one float64 array per rank, each of the expected shape, then the values."""
    if type(got) is not list:
        fail(f"{name} ({case}) should be a list of {len(wants)} arrays, one per rank, got {describe(got)}", hint="form")
    if len(got) != len(wants):
        fail(f"{name} ({case}) should hold {len(wants)} arrays, one per rank, got {len(got)}", hint="form")
    for j, (g, w) in enumerate(zip(got, wants, strict=True)):
        if not isinstance(g, np.ndarray) or g.dtype != np.float64:
            fail(f"{name}[{j}] ({case}) should be a float64 numpy array, got {describe(g)}", hint="form")
        if g.shape != w.shape:
            fail(f"{name}[{j}] ({case}) should have shape {w.shape}, got shape {g.shape}", hint=shape_hint,
                 expected=w, got=g)  # fmt: skip
    for j, (g, w) in enumerate(zip(got, wants, strict=True)):
        expect_array(g, w, what=f"{name}[{j}] ({case})", rtol=1e-9, atol=1e-12)


def expect_sent(got: Any, want: list[int], case: str) -> None:
    """A Python list of one int per rank, compared exactly."""
    if type(got) is not list or len(got) != len(want):
        fail(f"sent ({case}) should be a list of {len(want)} ints, one per rank, got {describe(got)}", hint="form")
    for r, s in enumerate(got):
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            fail(f"sent[{r}] ({case}) should be an int, got {describe(s)}", hint="form")
    wrong = [r for r, (s, w) in enumerate(zip(got, want, strict=True)) if s != w]
    if wrong:
        if values_shown():
            message = f"sent ({case}): expected {want}, got {[int(s) for s in got]}"
        else:
            message = f"sent ({case}) differs for {len(wrong)} of {len(want)} ranks, first for rank {wrong[0]}"
        fail(message, hint=None, expected=want, got=got)


def expect_heads(got: Any, full: np.ndarray, p: int, case: str) -> None:
    expect_arrays(got, expected_heads(full, p), "heads", case, "heads-shape")


def expect_ulysses(got: Any, case: Case, what: str) -> None:
    q, k, v, causal = (np.concatenate(case[0]), np.concatenate(case[1]), np.concatenate(case[2]), case[3])
    p = len(case[0])
    out_shards, sent = expect_sequence(got, 2, what=f"the return value ({what})", hint="form")
    T, H, d = q.shape
    expect_sent(sent, expected_sent(T, H, d, p), what)
    expect_arrays(out_shards, cut(full_attention(q, k, v, causal), p), "out_shards", what, "out-layout")


def random_case(rng: np.random.Generator, p: int, T: int, H: int, d: int, causal: bool) -> Case:
    q, k, v = (rng.normal(size=(T, H, d)) for _ in range(3))
    return cut(q * 1.5, p), cut(k, p), cut(v, p), causal


def label(n: int, total: int, p: int, T: int, H: int, d: int) -> str:
    return f"case {n} of {total}: p={p}, T={T}, H={H}, d={d}"


# Shapes (p, T, H, d): T and H rarely multiples of p, H below p, one token per rank, one rank.
SHAPES = [
    (3, 7, 5, 2),
    (4, 9, 6, 3),
    (2, 5, 4, 1),
    (3, 3, 7, 2),
    (5, 11, 3, 2),
    (4, 4, 2, 3),
    (1, 4, 3, 2),
    (6, 13, 6, 1),
    (3, 10, 1, 4),
    (2, 2, 5, 3),
]


def attention_cases(student: Student, rng: np.random.Generator, causal: bool) -> None:
    cases = [random_case(rng, *shape, causal) for shape in SHAPES]
    results = student.ulysses_attention.each(cases)
    for n, (shape, case, got) in enumerate(zip(SHAPES, cases, results, strict=True), start=1):
        expect_ulysses(got, case, label(n, len(SHAPES), *shape) + (", causal" if causal else ", not causal"))


def example() -> np.ndarray:
    """x[t, h] = 3t + h, for T = 3 tokens, H = 3 heads and d = 1."""
    return (3.0 * np.arange(3)[:, None, None] + np.arange(3)[None, :, None]).astype(np.float64)


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2, hint="source-order")
def worked_example(student: Student) -> None:
    x = example()
    shards = cut(x, 2)
    heads = student.seq_to_heads(shards)
    expect_arrays(heads, [np.array([[[0.0], [1.0]], [[3.0], [4.0]], [[6.0], [7.0]]]),
                          np.array([[[2.0]], [[5.0]], [[8.0]]])],
                  "heads", "x[t, h] = 3t + h", "heads-shape")  # fmt: skip
    q = cut(x / 4, 2)
    cases = [(q, q, shards, True), (q, q, shards, False)]
    causal, full = student.ulysses_attention.each(cases)
    expect_ulysses(causal, cases[0], "q = k = x/4, v = x, causal")
    expect_ulysses(full, cases[1], "q = k = x/4, v = x, not causal")


@check("The statement's second example: four ranks, each sends 48", public=True, hint="sent-count")
def four_ranks(student: Student) -> None:
    full = np.arange(64.0).reshape(8, 4, 2) / 16.0
    shards = cut(full, 4)
    q = cut(np.cos(full), 4)
    expect_ulysses(student.ulysses_attention(q, shards, shards, False), (q, shards, shards, False),
                   "p=4, T=8, H=4, d=2, not causal")  # fmt: skip


@check("Returns lists of float64 arrays, and sent as a list of ints", hint="form")
def result_forms(student: Student, rng: np.random.Generator) -> None:
    q, k, v, causal = random_case(rng, 3, 7, 5, 2, True)
    heads = student.seq_to_heads(q)
    if type(heads) is not list or len(heads) != 3:
        fail(f"heads (p=3) should be a list of 3 arrays, one per rank, got {describe(heads)}")
    for j, (h, (start, stop)) in enumerate(zip(heads, bounds(5, 3), strict=True)):
        if not isinstance(h, np.ndarray) or h.dtype != np.float64:
            fail(f"heads[{j}] should be a float64 numpy array, got {describe(h)}")
        if h.shape != (7, stop - start, 2):
            fail(f"heads[{j}] (p=3, T=7, H=5, d=2) should have shape (7, {stop - start}, 2), got shape {h.shape}",
                 hint="heads-shape")  # fmt: skip
    out_shards, sent = expect_sequence(student.ulysses_attention(q, k, v, causal), 2, what="the return value")
    if type(sent) is not list or len(sent) != 3:
        fail(f"sent should be a list of 3 ints, one per rank, got {describe(sent)}")
    for r, s in enumerate(sent):
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)):
            fail(f"sent[{r}] should be an int, got {describe(s)}")
    if type(out_shards) is not list or len(out_shards) != 3:
        fail(f"out_shards should be a list of 3 arrays, one per rank, got {describe(out_shards)}")
    for r, (o, (start, stop)) in enumerate(zip(out_shards, bounds(7, 3), strict=True)):
        if not isinstance(o, np.ndarray) or o.dtype != np.float64:
            fail(f"out_shards[{r}] should be a float64 numpy array, got {describe(o)}")
        if o.shape != (stop - start, 5, 2):
            fail(f"out_shards[{r}] (p=3, T=7, H=5, d=2) should have shape ({stop - start}, 5, 2), got shape {o.shape}",
                 hint="out-layout")  # fmt: skip


@check("The all-to-all: uneven tokens and heads, ranks without heads, one rank", hint="head-blocks")
def heads_layout(student: Student, rng: np.random.Generator) -> None:
    fulls = [rng.normal(size=(T, H, d)) for _, T, H, d in SHAPES]
    results = student.seq_to_heads.each([(cut(full, p),) for (p, *_), full in zip(SHAPES, fulls, strict=True)])
    for n, (shape, full, got) in enumerate(zip(SHAPES, fulls, results, strict=True), start=1):
        expect_heads(got, full, shape[0], label(n, len(SHAPES), *shape))


@check("Attention over the whole sequence, not causal", hint="all-to-all")
def attention_full(student: Student, rng: np.random.Generator) -> None:
    attention_cases(student, rng, causal=False)


@check("Causal attention, masked by global positions", hint="causal-global")
def attention_causal(student: Student, rng: np.random.Generator) -> None:
    attention_cases(student, rng, causal=True)


@check("Elements sent: only pieces that leave a rank, both ways", hint="sent-count")
def sent_counts(student: Student) -> None:
    shapes = [(2, 9, 5, 3), (5, 5, 2, 4), (3, 8, 9, 1), (7, 10, 12, 2), (1, 6, 4, 8), (4, 7, 4, 5)]
    cases = [(cut(np.zeros((T, H, d)), p),) * 3 + (False,) for p, T, H, d in shapes]
    results = student.ulysses_attention.each(cases)
    for n, ((p, T, H, d), got) in enumerate(zip(shapes, results, strict=True), start=1):
        what = label(n, len(shapes), p, T, H, d)
        _, sent = expect_sequence(got, 2, what=f"the return value ({what})", hint="form")
        expect_sent(sent, expected_sent(T, H, d, p), what)


@check("Scores of several hundred, positive and negative, do not overflow", hint="stable")
def large_scores(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, T, H, d in ((3, 7, 4, 4), (2, 6, 3, 4)):
        for causal in (False, True):
            q, k, v = (rng.normal(size=(T, H, d)) for _ in range(3))
            k[:, :, 0] = np.sqrt(d)  # then q[i, h, 0] is added to every score of query i in head h
            q[:, :, 0] = rng.choice([-900.0, -750.0, 720.0, 850.0], size=(T, H))
            cases.append(((p, T, H, d), (cut(q, p), cut(k, p), cut(v, p), causal)))
    results = student.ulysses_attention.each([case for _, case in cases])
    for n, ((shape, case), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_ulysses(got, case, label(n, len(cases), *shape) + (", causal" if case[3] else ", not causal"))


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    case = random_case(rng, 3, 8, 5, 2, True)
    full = np.concatenate(case[0])
    # The same lists and arrays for two calls in one crossing: a call that changes them changes what
    # the second call sees.
    first, second = student.seq_to_heads.each([(case[0],), (case[0],)])
    expect_heads(first, full, 3, "the first of two calls on the same shards")
    expect_heads(second, full, 3, "the second of two calls on the same shards")
    first, second = student.ulysses_attention.each([case, case])
    expect_ulysses(first, case, "the first of two calls on the same shards")
    expect_ulysses(second, case, "the second of two calls on the same shards")
