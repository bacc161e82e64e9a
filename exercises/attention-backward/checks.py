"""Hidden checks for "Attention, Backward".

The expected gradients never use the backward formulas. Attention is evaluated in complex
arithmetic, one query at a time over the keys it may see (a slice, not a mask), with one entry of
q, k or v nudged by i·h; ∂L/∂entry is Im(L) / h for L = Σ dout ⊙ O (the complex step: exact to
rounding, with no subtraction of nearly equal values). Every nudged entry is one item of a batch
axis, so each input costs one vectorised pass. A wrong answer is named by the grader, by comparing
it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, expect_array, expect_sequence, fail

NAMES = ("dq", "dk", "dv")
H = 1e-20  # the complex step


# --------------------------------------------------------------------------- independent expected values


def visible(i: int, Tq: int, Tk: int, causal: bool) -> int:
    """How many keys query i sees: the first i + 1 + (Tk − Tq) when causal, else all of them."""
    return min(Tk, i + 1 + Tk - Tq) if causal else Tk


def losses(q: np.ndarray, k: np.ndarray, v: np.ndarray, dout: np.ndarray, causal: bool) -> np.ndarray:
    """L = Σ dout ⊙ O for a batch of complex inputs: q (B, Tq, d), k (B, Tk, d), v (B, Tk, dv)."""
    B, Tq, d = q.shape
    Tk = k.shape[1]
    total = np.zeros(B, dtype=complex)
    for i in range(Tq):
        n = visible(i, Tq, Tk, causal)
        scores = np.einsum("bc,bjc->bj", q[:, i], k[:, :n]) / np.sqrt(d)
        weights = np.exp(scores - scores.real.max(axis=1, keepdims=True))
        weights = weights / weights.sum(axis=1, keepdims=True)
        out_i = np.einsum("bj,bjc->bc", weights, v[:, :n])
        total += out_i @ dout[i]
    return total


def gradient(arrays: list[np.ndarray], which: int, dout: np.ndarray, causal: bool) -> np.ndarray:
    """∂L/∂arrays[which], every entry nudged in its own item of the batch."""
    shape = arrays[which].shape
    size = int(np.prod(shape))
    batch = [np.broadcast_to(a.astype(complex), (size, *a.shape)).copy() for a in arrays]
    batch[which].reshape(size, size)[np.arange(size), np.arange(size)] += 1j * H
    return (losses(*batch, dout, causal).imag / H).reshape(shape)


def expected(q: np.ndarray, k: np.ndarray, v: np.ndarray, dout: np.ndarray, causal: bool) -> tuple:
    return tuple(gradient([q, k, v], which, dout, causal) for which in range(3))


def expect_result(got: Any, want: tuple, what: str) -> None:
    """The form first (a tuple of three float64 arrays shaped like q, k and v), then each value."""
    parts = expect_sequence(got, 3, what=f"{what}: the return value", hint="form")
    for name, part, w in zip(NAMES, parts, want, strict=True):
        if not isinstance(part, np.ndarray) or part.shape != w.shape or part.dtype != np.float64:
            expect_array(part, w, what=f"{what}: {name}", dtype=np.float64, hint="form")
    for name, part, w in zip(NAMES, parts, want, strict=True):
        atol = 1e-9 * max(1.0, float(np.abs(w).max(initial=0.0)))
        expect_array(part, w, what=f"{what}: {name}", rtol=1e-9, atol=atol, hint="form")


Case = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, bool]


def random_case(rng: np.random.Generator, Tq: int, Tk: int, d: int, dv: int, causal: bool) -> Case:
    q = rng.normal(size=(Tq, d)) * 1.5
    return q, rng.normal(size=(Tk, d)), rng.normal(size=(Tk, dv)), rng.normal(size=(Tq, dv)), causal


def label(n: int, total: int, case: Case) -> str:
    q, k, v, _, causal = case
    kind = "causal" if causal else "not causal"
    return f"case {n} of {total} (Tq={q.shape[0]}, Tk={k.shape[0]}, d={q.shape[1]}, dv={v.shape[1]}, {kind})"


def grade(student: Student, cases: list[Case]) -> None:
    """Every case in one crossing, then each answer against its expected gradients."""
    results = student.sdpa_backward.each(cases)
    for n, (case, got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_result(got, expected(*case), label(n, len(cases), case))


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement: a single key", public=True, points=2, hint="form")
def worked_example(student: Student) -> None:
    q = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    k, v = np.array([[2.0, -1.0]]), np.array([[3.0, 4.0]])
    dout = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    want = (np.zeros((3, 2)), np.zeros((1, 2)), np.array([[2.0, 2.0]]))
    expect_result(student.sdpa_backward(q, k, v, dout, False), want, "three queries and one key")


@check("The worked example from the statement: one query, causal or not", public=True, points=2, hint="causal")
def one_query(student: Student) -> None:
    q = np.array([[2.0, 0.0, 0.0, 0.0]])
    k = np.array([[0.0, 0.0, 0.0, 0.0], [np.log(3.0), 0.0, 0.0, 0.0]])
    v, dout = np.array([[1.0], [5.0]]), np.array([[1.0]])
    want = (
        np.array([[0.375 * np.log(3.0), 0.0, 0.0, 0.0]]),
        np.array([[-0.75, 0.0, 0.0, 0.0], [0.75, 0.0, 0.0, 0.0]]),
        np.array([[0.25], [0.75]]),
    )
    plain, causal = student.sdpa_backward.each([(q, k, v, dout, False), (q, k, v, dout, True)])
    expect_result(plain, want, "one query, two keys, not causal")
    expect_result(causal, want, "one query, two keys, causal (the last query sees every key)")


@check("Returns a tuple of three float64 arrays shaped like q, k and v", hint="form")
def result_form(student: Student, rng: np.random.Generator) -> None:
    q, k, v, dout, causal = random_case(rng, 3, 5, 4, 2, False)
    parts = expect_sequence(student.sdpa_backward(q, k, v, dout, causal), 3, what="the return value")
    for name, part, shape in zip(NAMES, parts, [(3, 4), (5, 4), (5, 2)], strict=True):
        if not isinstance(part, np.ndarray) or part.shape != shape or part.dtype != np.float64:
            expect_array(part, np.zeros(shape), what=f"{name} for Tq=3, Tk=5, d=4, dv=2", dtype=np.float64)


@check("Without a mask: more keys than queries, fewer, as many", hint="softmax-backward")
def full_attention(student: Student, rng: np.random.Generator) -> None:
    shapes = [(3, 5, 4, 2), (6, 2, 3, 5), (4, 4, 8, 3), (1, 7, 2, 2), (5, 1, 3, 4), (8, 8, 16, 8)]
    grade(student, [random_case(rng, *shape, False) for shape in shapes])


@check("Causal, as many queries as keys", hint="causal")
def causal_square(student: Student, rng: np.random.Generator) -> None:
    shapes = [(5, 5, 4, 3), (1, 1, 2, 2), (7, 7, 8, 4), (3, 3, 2, 5)]
    grade(student, [random_case(rng, *shape, True) for shape in shapes])


@check("Causal with fewer queries than keys (the queries are the last tokens)", hint="causal")
def causal_with_cache(student: Student, rng: np.random.Generator) -> None:
    shapes = [(3, 7, 4, 3), (1, 6, 4, 2), (2, 3, 2, 2), (5, 9, 8, 4), (4, 5, 3, 6)]
    grade(student, [random_case(rng, *shape, True) for shape in shapes])


@check("Scores in the thousands, far apart from one query to the next", hint="stable-softmax")
def large_scores(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for Tq, Tk, offsets in ((5, 7, [2000.0, -2000.0, 1500.0, -500.0, 3000.0]), (4, 4, [-3000.0, 2500.0, 0.0, 1000.0])):
        for causal in (False, True):
            q, k, v, dout, _ = random_case(rng, Tq, Tk, 4, 3, causal)
            k[:, 0] = 1.0  # with √d = 2, q[i, 0] = 2·offset adds the offset to every score of query i
            q[:, 0] = 2.0 * np.array(offsets)
            q[:, 1:] *= 2.0
            cases.append((q, k, v, dout, causal))
    grade(student, cases)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    q, k, v, dout, causal = random_case(rng, 3, 5, 4, 2, True)
    # The same arrays for two calls in one crossing: a call that changes its arguments in place
    # changes what the second call sees.
    first, second = student.sdpa_backward.each([(q, k, v, dout, causal), (q, k, v, dout, causal)])
    want = expected(q, k, v, dout, causal)
    expect_result(first, want, "the first of two calls on the same arrays")
    if isinstance(first, (tuple, list)) and isinstance(second, (tuple, list)) and len(second) == 3:
        same = all(isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and np.allclose(a, b)
                   for a, b in zip(first, second, strict=True))  # fmt: skip
        if not same:
            fail("a second call on the same arrays gives another answer: the first call changed its inputs in place")
    expect_result(second, want, "the second of two calls on the same arrays")
