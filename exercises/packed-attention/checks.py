"""Hidden checks for "Attention over Packed Documents".

Expected outputs come from the documents themselves: the row is cut into its runs of equal ids,
and each document's tokens get ordinary causal attention over that document alone, computed as a
(L, L) matrix with a log-sum-exp softmax; padding rows are zeros. The pair count is Σ L(L + 1)/2
over the runs, in Python integers. Nothing here builds the row-wide mask a solution uses.
"""

from __future__ import annotations

import math

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_integer, fail

# --------------------------------------------------------------------------- independent reference


def runs(seg_ids: np.ndarray) -> list[tuple[int, int]]:
    """(start, end) of each document: maximal runs of one id other than -1."""
    found, start = [], 0
    ids = [int(i) for i in seg_ids]
    for t in range(1, len(ids) + 1):
        if t == len(ids) or ids[t] != ids[start]:
            if ids[start] != -1:
                found.append((start, t))
            start = t
    return found


def expected_out(q: np.ndarray, k: np.ndarray, v: np.ndarray, seg_ids: np.ndarray) -> np.ndarray:
    out = np.zeros((len(seg_ids), v.shape[1]))
    for a, b in runs(seg_ids):
        scores = q[a:b] @ k[a:b].T / math.sqrt(q.shape[1])
        L = b - a
        logits = np.where(np.tril(np.ones((L, L), dtype=bool)), scores, -np.inf)
        weights = np.exp(logits - np.logaddexp.reduce(logits, axis=1, keepdims=True))
        out[a:b] = weights @ v[a:b]
    return out


def expected_pairs(seg_ids: np.ndarray) -> int:
    return sum((b - a) * (b - a + 1) // 2 for a, b in runs(seg_ids))


def row(spec: list[tuple[int, int]]) -> np.ndarray:
    """A seg_ids row from (id, length) pieces, id -1 for padding."""
    return np.array([i for i, n in spec for _ in range(n)], dtype=np.int64)


def qkv(rng: np.random.Generator, T: int, d: int, dv: int, scale: float = 1.0):
    return rng.normal(size=(T, d)) * scale, rng.normal(size=(T, d)) * scale, rng.normal(size=(T, dv))


def compare(got: object, want: np.ndarray, what: str) -> None:
    if not isinstance(got, np.ndarray):
        fail(f"{what} should be a float64 numpy array of shape {want.shape}, got {describe(got)}", hint="form")
    expect_array(
        got, want, what=what, dtype=np.float64, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(want).max())), hint="form"
    )


Case = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, str]


def run(student: Student, cases: list[Case]) -> None:
    results = student.packed_attention.each([(q, k, v, s) for q, k, v, s, _ in cases])
    for (q, k, v, s, what), got in zip(cases, results, strict=True):
        compare(got, expected_out(q, k, v, s), what)


def random_cases(rng: np.random.Generator, specs: list[tuple[list[tuple[int, int]], str]], d: int = 4, dv: int = 3):
    cases = []
    for spec, label in specs:
        s = row(spec)
        q, k, v = qkv(rng, len(s), d, dv, scale=1.5)
        cases.append((q, k, v, s, f"out ({label})"))
    return cases


# --------------------------------------------------------------------------- the checks


WORKED = (
    np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0], [2.0, 2.0]]),
    np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0], [3.0, 3.0]]),
    np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]]),
    np.array([0, 0, 1, -1], dtype=np.int64),
)


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    q, k, v, s = WORKED
    w = np.exp([1 / math.sqrt(2), 2 / math.sqrt(2)])
    w /= w.sum()
    want = np.array([[1.0, 2.0], w @ v[:2], [5.0, 6.0], [0.0, 0.0]])
    compare(student.packed_attention(q, k, v, s), want, "out for seg_ids [0, 0, 1, -1]")
    expect_integer(student.attended_pairs(s), 4, what="attended_pairs for seg_ids [0, 0, 1, -1]", hint="pairs")


@check("Returns out of shape (T, dv) in float64, and an int", hint="form")
def output_form(student: Student, rng: np.random.Generator) -> None:
    cases = random_cases(rng, [([(0, 5)], "T=5, d=4, dv=3"), ([(2, 3), (-1, 2)], "T=5, one document, then padding")])
    q, k, v = qkv(rng, 6, 2, 7)
    cases.append((q, k, v, row([(0, 2), (1, 4)]), "out (T=6, d=2, dv=7)"))
    run(student, cases)
    expect_integer(student.attended_pairs(row([(0, 3), (1, 2)])), 9, what="attended_pairs (two documents)", hint="form")


@check("Tokens never attend to another document", hint="documents")
def separate_documents(student: Student, rng: np.random.Generator) -> None:
    specs = [
        ([(0, 4), (1, 5), (2, 3)], "three documents, no padding"),
        ([(0, 1), (1, 1), (2, 6), (3, 1)], "documents of one token"),
        ([(0, 7), (1, 9)], "two documents"),
        ([(3, 4), (7, 2), (20, 5)], "ids that skip numbers"),
    ]
    run(student, random_cases(rng, specs))


@check("Inside a document, tokens never attend to the future", hint="causal")
def causal_inside(student: Student, rng: np.random.Generator) -> None:
    specs = [([(0, 12)], "a single document of 12 tokens"), ([(5, 6), (6, 8)], "two documents")]
    run(student, random_cases(rng, specs, d=6, dv=5))


@check("Padding rows are exactly 0, wherever the padding is", hint="padding")
def padding(student: Student, rng: np.random.Generator) -> None:
    specs = [
        ([(-1, 3), (0, 5)], "padding first"),
        ([(0, 4), (-1, 3), (1, 4)], "padding between documents"),
        ([(0, 3), (1, 3), (-1, 4)], "padding last"),
        ([(-1, 2), (0, 3), (-1, 1), (4, 2), (-1, 3)], "padding in three places"),
        ([(-1, 6)], "a row of padding only"),
        ([(-1, 1)], "one padding token"),
    ]
    run(student, random_cases(rng, specs))


@check("Scores in the thousands do not overflow the softmax", hint="stable")
def large_scores(student: Student, rng: np.random.Generator) -> None:
    s = row([(0, 8), (-1, 2), (1, 10)])
    q, k, v = qkv(rng, len(s), 4, 3, scale=40.0)
    run(student, [(q, k, v, s, "out with scores of a few thousand")])


@check("Scaled by √d of the queries and keys, not √dv", hint="scale")
def scale_by_d(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for d, dv in ((2, 8), (9, 1), (16, 4)):
        s = row([(0, 5), (1, 6), (-1, 1)])
        q, k, v = qkv(rng, len(s), d, dv, scale=1.5)
        cases.append((q, k, v, s, f"out (d={d}, dv={dv})"))
    run(student, cases)


@check("attended_pairs counts the allowed pairs", hint="pairs")
def pairs_count(student: Student) -> None:
    specs = [
        [(0, 1)],
        [(0, 7)],
        [(0, 3), (1, 5), (2, 2)],
        [(-1, 2), (0, 4), (-1, 3), (5, 6), (-1, 1)],
        [(-1, 9)],
        [(0, 1), (1, 1), (2, 1), (3, 1)],
        [(0, 500), (1, 300), (-1, 200), (2, 1000)],
    ]
    rows = [row(spec) for spec in specs]
    results = student.attended_pairs.each([(s,) for s in rows])
    for n, (s, got) in enumerate(zip(rows, results, strict=True), start=1):
        expect_integer(got, expected_pairs(s), what=f"attended_pairs, row {n} of {len(rows)} (T={len(s)})", hint="form")


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    s = row([(0, 4), (-1, 1), (1, 5)])
    q, k, v = qkv(rng, len(s), 4, 3, scale=1.5)
    want = expected_out(q, k, v, s)
    # The same arrays for two calls in one crossing: a call that writes into them changes what the
    # second call is given.
    first, second = student.packed_attention.each([(q, k, v, s), (q, k, v, s)])
    compare(first, want, "out from the first of two calls on the same arrays")
    compare(second, want, "out from the second call on the same arrays")
    counts = student.attended_pairs.each([(s,), (s,)])
    for n, got in enumerate(counts, start=1):
        expect_integer(got, expected_pairs(s), what=f"attended_pairs, call {n} of 2 on the same row", hint="form")
