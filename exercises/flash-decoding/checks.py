"""Checks for "Flash-Decoding: Split the KV Cache, Merge by Log-Sum-Exp".

The expected values are computed here by another route than a solution's: each key is given to its
split by the key's own index (split t // chunk, with chunk the smallest size whose n_splits chunks
cover T), each split's log-sum-exp is numpy's pairwise logaddexp over its scores; a merge is checked
against plain attention over all the keys (one log-sum-exp over every score), or against a fold that
merges the splits one at a time, as a ring of ranks would. A wrong answer is named by the grader, by
comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import (
    CheckFailed,
    Student,
    check,
    expect_array,
    expect_sequence,
    fail,
    scaled_tolerance,
    values_shown,
)

Parts = tuple[np.ndarray, np.ndarray]

# --------------------------------------------------------------------------- independent expected values


def chunk_size(T: int, n_splits: int) -> int:
    """The smallest chunk whose n_splits copies cover all T keys."""
    return next(c for c in range(1, T + 1) if c * n_splits >= T)


def scores_of(q: np.ndarray, k: np.ndarray) -> np.ndarray:
    """s[h, t] = q_h · k_{h,t} / √d, one head at a time."""
    d = q.shape[1]
    return np.stack([k[h] @ q[h] for h in range(q.shape[0])]) / np.sqrt(d)


def parts_of(scores: np.ndarray, v: np.ndarray, n_splits: int) -> Parts:
    """Each split's normalised output and log-sum-exp, from the scores (H, T) and values (H, T, dv)."""
    H, T = scores.shape
    owner = np.arange(T) // chunk_size(T, n_splits)
    o_parts = np.zeros((n_splits, H, v.shape[2]))
    lse_parts = np.full((n_splits, H), -np.inf)
    for s in range(n_splits):
        mine = owner == s
        if not mine.any():
            continue
        lse_parts[s] = np.logaddexp.reduce(scores[:, mine], axis=1)
        weights = np.exp(scores[:, mine] - lse_parts[s][:, None])
        o_parts[s] = np.einsum("ht,htc->hc", weights, v[:, mine])
    return o_parts, lse_parts


def expected_split(q: np.ndarray, k: np.ndarray, v: np.ndarray, n_splits: int) -> Parts:
    return parts_of(scores_of(q, k), v, int(n_splits))


def attention(scores: np.ndarray, v: np.ndarray) -> Parts:
    """Plain attention over every key: what a merge of any splits of these keys must give."""
    lse = np.logaddexp.reduce(scores, axis=1)
    return np.einsum("ht,htc->hc", np.exp(scores - lse[:, None]), v), lse


def folded(o_parts: np.ndarray, lse_parts: np.ndarray) -> Parts:
    """The splits merged one at a time into a running (o, lse), head by head, skipping the empty ones."""
    n, H, dv = o_parts.shape
    o, lse = np.zeros((H, dv)), np.full(H, -np.inf)
    for h in range(H):
        for s in range(n):
            if lse_parts[s, h] == -np.inf:
                continue
            both = np.logaddexp(lse[h], lse_parts[s, h])
            o[h] = np.exp(lse[h] - both) * o[h] + np.exp(lse_parts[s, h] - both) * o_parts[s, h]
            lse[h] = both
    return o, lse


# --------------------------------------------------------------------------- comparing answers


def expect_form(got: Any, want: np.ndarray, what: str) -> None:
    """A float64 array of the expected shape; its values are compared later."""
    if not isinstance(got, np.ndarray) or got.dtype != np.float64 or got.shape != want.shape:
        expect_array(got, np.zeros(want.shape), what=what, dtype=np.float64, hint="form")


def expect_empty_splits(o: np.ndarray, lse: np.ndarray, lse_want: np.ndarray, what: str) -> None:
    """Exactly -inf, and an output of 0 rather than nan, wherever a split holds no keys."""
    for s, h in np.argwhere(np.isneginf(lse_want)):
        value = lse[s, h]
        if np.isnan(value) or value == 0.0 or value == np.inf:
            kind = repr(float(value)) if values_shown() else "nan" if np.isnan(value) else f"{value:g}"
            fail(f"{what}: lse_parts[{s}, {h}] should be exactly -inf, since split {s} holds no keys and the log of "
                 f"an empty sum is -inf; got {kind}", hint="empty-split", expected=lse_want, got=lse)  # fmt: skip
        if value != -np.inf:
            shown = f" ({float(value)!r})" if values_shown() else ""
            fail(f"{what}: lse_parts[{s}, {h}] should be exactly -inf, since split {s} holds no keys: with "
                 f"⌈T / n_splits⌉ keys per split, the splits before it hold them all; its lse is finite{shown}, as if "
                 "keys had been given to it", hint="splits", expected=lse_want, got=lse)  # fmt: skip
        if np.isnan(o[s, h]).any():
            fail(f"{what}: o_parts[{s}, {h}] holds nan, but split {s} holds no keys and its output is 0 (its empty "
                 "weighted sum divided by its zero total is 0/0)", hint="empty-split", got=o)  # fmt: skip


def expect_split(got: Any, want: Parts, what: str) -> None:
    o_want, lse_want = want
    o, lse = expect_sequence(got, 2, what=f"{what}: the return value", hint="form")
    expect_form(o, o_want, f"{what}: o_parts")
    expect_form(lse, lse_want, f"{what}: lse_parts")
    expect_empty_splits(o, lse, lse_want, what)
    expect_array(lse, lse_want, what=f"{what}: lse_parts", **scaled_tolerance(lse_want))
    expect_array(o, o_want, what=f"{what}: o_parts", **scaled_tolerance(o_want))


def expect_merge(got: Any, want: Parts, what: str) -> None:
    o_want, lse_want = want
    o, lse = expect_sequence(got, 2, what=f"{what}: the return value", hint="form")
    expect_form(o, o_want, f"{what}: o")
    expect_form(lse, lse_want, f"{what}: lse")
    expect_array(lse, lse_want, what=f"{what}: lse", **scaled_tolerance(lse_want))
    expect_array(o, o_want, what=f"{what}: o", **scaled_tolerance(o_want))


SplitCase = tuple[np.ndarray, np.ndarray, np.ndarray, int]


def random_split(rng: np.random.Generator, H: int, T: int, d: int, dv: int, n_splits: int, spread: float = 1.5
                 ) -> SplitCase:  # fmt: skip
    return rng.normal(size=(H, d)) * spread, rng.normal(size=(H, T, d)), rng.normal(size=(H, T, dv)), n_splits


def grade_splits(student: Student, cases: list[tuple[SplitCase, str]]) -> None:
    """Every case in one crossing, then each answer against its expected parts."""
    results = student.split_kv_attention.each([case for case, _ in cases])
    for n, ((case, kind), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_split(got, expected_split(*case), f"case {n} of {len(cases)} ({kind})")


# --------------------------------------------------------------------------- the worked examples

EXAMPLE_Q = np.array([[1.0]])
EXAMPLE_K = np.log(np.array([[[1.0], [2.0], [3.0]]]))  # scores 0, ln 2, ln 3
EXAMPLE_V = np.array([[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]])
LN2, LN3 = np.log(2.0), np.log(3.0)
TWO_SPLITS = (np.array([[[1 / 3, 2 / 3]], [[1.0, 1.0]]]), np.array([[LN3], [LN3]]))
FOUR_SPLITS = (
    np.array([[[1.0, 0.0]], [[0.0, 1.0]], [[1.0, 1.0]], [[0.0, 0.0]]]),
    np.array([[0.0], [LN2], [LN3], [-np.inf]]),
)
MERGED = (np.array([[2 / 3, 5 / 6]]), np.array([np.log(6.0)]))


@check("split_kv_attention on the statement's example: two splits, then four (the last one empty)", public=True,
       points=2, hint="form")  # fmt: skip
def worked_example_split(student: Student) -> None:
    two, four = student.split_kv_attention.each([(EXAMPLE_Q, EXAMPLE_K, EXAMPLE_V, 2), (EXAMPLE_Q, EXAMPLE_K,
                                                                                         EXAMPLE_V, 4)])  # fmt: skip
    expect_split(two, TWO_SPLITS, "two splits")
    expect_split(four, FOUR_SPLITS, "four splits")


@check("merge_splits on the statement's examples, an empty split and log-sum-exps near 1000 included", public=True,
       points=2, hint="form")  # fmt: skip
def worked_example_merge(student: Student) -> None:
    large = (np.array([[[1.0, 0.0]], [[0.0, 1.0]]]), np.array([[1000.0], [1000.0 + LN3]]))
    two, four, big = student.merge_splits.each([TWO_SPLITS, FOUR_SPLITS, large])
    expect_merge(two, MERGED, "the two splits merged")
    expect_merge(four, MERGED, "the four splits merged")
    expect_merge(big, (np.array([[0.25, 0.75]]), np.array([1000.0 + np.log(4.0)])), "log-sum-exps 1000 and 1000 + ln 3")


# --------------------------------------------------------------------------- split_kv_attention


@check("Both functions return tuples of float64 arrays of the stated shapes", hint="form")
def result_forms(student: Student, rng: np.random.Generator) -> None:
    q, k, v, n = random_split(rng, 3, 7, 4, 2, 3)
    o_want, lse_want = np.zeros((3, 3, 2)), np.zeros((3, 3))
    o, lse = expect_sequence(student.split_kv_attention(q, k, v, n), 2, what="split_kv_attention's return value")
    expect_form(o, o_want, "o_parts (3 splits, 3 heads, dv = 2)")
    expect_form(lse, lse_want, "lse_parts (3 splits, 3 heads)")
    o_parts, lse_parts = expected_split(q, k, v, n)
    o, lse = expect_sequence(student.merge_splits(o_parts, lse_parts), 2, what="merge_splits' return value")
    expect_form(o, np.zeros((3, 2)), "the merged o (3 heads, dv = 2)")
    expect_form(lse, np.zeros(3), "the merged lse (3 heads)")


@check("split_kv_attention for many shapes: several heads, dv unlike d, one split or one key per split", hint="splits")
def split_shapes(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (random_split(rng, 2, 8, 4, 3, 2), "splits of 4 keys"),
        (random_split(rng, 3, 9, 8, 5, 3), "three splits of 3 keys"),
        (random_split(rng, 1, 6, 2, 2, 1), "a single split"),
        (random_split(rng, 4, 5, 3, 1, 5), "one key per split"),
        (random_split(rng, 2, 12, 16, 4, 4), "four splits of 3 keys"),
        (random_split(rng, 5, 16, 4, 6, np.int64(2)), "n_splits a numpy integer"),
        (random_split(rng, 1, 1, 3, 2, 1), "a single key"),
    ]
    grade_splits(student, cases)


@check("Splits of ⌈T / n_splits⌉ contiguous keys when n_splits does not divide T", hint="splits")
def uneven_splits(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (random_split(rng, 2, 10, 4, 3, 4), "ten keys in four splits"),
        (random_split(rng, 3, 7, 4, 2, 2), "a shorter last split"),
        (random_split(rng, 1, 11, 2, 3, 3), "a last split of 3 keys after two of 4"),
        (random_split(rng, 2, 13, 8, 4, 5), "a last split of 1 key"),
        (random_split(rng, 4, 9, 2, 2, 2), "a last split of 4 keys after one of 5"),
    ]
    grade_splits(student, cases)


@check("Empty splits: lse exactly -inf and an output of 0", hint="empty-split")
def empty_splits(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (random_split(rng, 2, 5, 4, 3, 4), "five keys in four splits: 2, 2, 1, 0"),
        (random_split(rng, 1, 4, 2, 2, 3), "four keys in three splits: 2, 2, 0"),
        (random_split(rng, 3, 7, 4, 2, 5), "seven keys in five splits: 2, 2, 2, 1, 0"),
        (random_split(rng, 2, 9, 3, 3, 6), "nine keys in six splits: 2, 2, 2, 2, 1, 0"),
        (random_split(rng, 2, 3, 4, 2, 7), "more splits than keys"),
        (random_split(rng, 1, 1, 2, 3, 3), "a single key in three splits"),
        (random_split(rng, 2, 6, 2, 2, 4), "six keys in four splits: 2, 2, 2, 0"),
    ]
    grade_splits(student, cases)


@check("Scores in the hundreds and near ±1000 do not overflow", hint="stable-split")
def large_scores(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for H, T, d, dv, n, spread, kind in (
        (2, 9, 4, 3, 3, 400.0, "large scores, far apart"),
        (3, 8, 2, 2, 2, 150.0, "scores in the hundreds"),
        (2, 6, 4, 2, 4, 600.0, "large scores, an empty split"),
    ):
        q, k, v, _ = random_split(rng, H, T, d, dv, n, spread=spread)
        scores = scores_of(q, k)
        if np.abs(scores).max() > 1000.0:  # ±1000 at most, as the statement says
            q = q * (1000.0 / np.abs(scores).max())
        cases.append(((q, k, v, n), kind))
    grade_splits(student, cases)


# --------------------------------------------------------------------------- merge_splits


def merge_attention_case(rng: np.random.Generator, T: int, dv: int, n_splits: int, offsets: list[float]
                         ) -> tuple[Parts, Parts]:  # fmt: skip
    """Parts of random attention (one head per offset, its scores around it) and that attention whole."""
    H = len(offsets)
    scores = rng.normal(size=(H, T)) * 3.0 + np.array(offsets)[:, None]
    v = rng.normal(size=(H, T, dv))
    return parts_of(scores, v, n_splits), attention(scores, v)


@check("merge_splits gives attention over every key, whatever the splits", hint="merge-weights")
def merge_attention(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (merge_attention_case(rng, 8, 3, 2, [0.0, 2.0]), "two splits of 4 keys"),
        (merge_attention_case(rng, 10, 2, 4, [1.0, -3.0, 0.5]), "splits of 3, 3, 3 and 1 keys"),
        (merge_attention_case(rng, 5, 4, 4, [0.0]), "splits of 2, 2, 1 and 0 keys"),
        (merge_attention_case(rng, 3, 2, 6, [2.0, -1.0]), "more splits than keys"),
        (merge_attention_case(rng, 7, 3, 1, [0.0, 1.0]), "a single split"),
        (merge_attention_case(rng, 12, 5, 3, [1000.0, -1000.0, 400.0, 0.0]), "large scores, far apart"),
    ]
    results = student.merge_splits.each([parts for (parts, _), _ in cases])
    for n, (((_, want), kind), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_merge(got, want, f"case {n} of {len(cases)} ({kind})")


def extreme_parts(rng: np.random.Generator, n_splits: int, H: int, dv: int, empty: list[tuple[int, int]]) -> Parts:
    """Log-sum-exps anywhere in ±1000, far apart within a head; -inf (and an output of 0) at the given places."""
    lse = rng.uniform(-1000.0, 1000.0, size=(n_splits, H))
    lse[0] = lse[-1] - rng.uniform(0.0, 3.0, size=H)  # a head's top two splits close enough that both count
    o = rng.normal(size=(n_splits, H, dv))
    for s, h in empty:
        lse[s, h], o[s, h] = -np.inf, 0.0
    return o, lse


@check("merge_splits with log-sum-exps near ±1000 and empty splits anywhere", hint="stable-merge")
def merge_extreme(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (extreme_parts(rng, 3, 2, 3, []), "three splits, two heads"),
        (extreme_parts(rng, 4, 3, 2, [(1, 0), (2, 2)]), "empty splits in two heads"),
        (extreme_parts(rng, 5, 1, 4, [(1, 0), (2, 0), (3, 0)]), "an empty split first"),
        (extreme_parts(rng, 2, 4, 2, [(0, 1), (1, 3)]), "heads with one split left"),
        ((np.array([[[2.0, -1.0]], [[0.5, 3.0]]]), np.array([[-1000.0], [-1000.0 + LN2]])), "log-sum-exps far below 0"),
        ((np.array([[[2.0, -1.0], [1.0, 1.0]], [[0.5, 3.0], [0.0, 0.0]]]), np.array([[1000.0, 990.0],
                                                                                     [-990.0, -np.inf]])),
         "log-sum-exps far apart, an empty split"),
    ]  # fmt: skip
    results = student.merge_splits.each([parts for parts, _ in cases])
    for n, ((parts, kind), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_merge(got, folded(*parts), f"case {n} of {len(cases)} ({kind})")


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    q, k, v, n = random_split(rng, 2, 7, 4, 3, 3)
    # The same arrays for two calls of each function: a call that changes them changes the second answer.
    first, second = student.split_kv_attention.each([(q, k, v, n), (q, k, v, n)])
    want = expected_split(q, k, v, n)
    expect_split(first, want, "the first of two calls on the same arrays")
    o_parts, lse_parts = extreme_parts(rng, 3, 2, 3, [(1, 1)])
    lse_parts += 5.0
    merged = student.merge_splits.each([(o_parts, lse_parts), (o_parts, lse_parts)])
    merged_want = folded(o_parts, lse_parts)
    expect_merge(merged[0], merged_want, "merge_splits, the first of two calls on the same arrays")
    for name, got, expected, expect in (("split_kv_attention", second, want, expect_split),
                                        ("merge_splits", merged[1], merged_want, expect_merge)):  # fmt: skip
        try:
            expect(got, expected, f"{name}, the second of two calls on the same arrays")
        except CheckFailed:
            fail(f"{name} gives another answer when called again on the same arrays: the first call changed its "
                 "inputs", hint="no-mutation")  # fmt: skip
