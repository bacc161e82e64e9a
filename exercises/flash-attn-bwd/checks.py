"""Checks for "FlashAttention, Backward".

The expected values never come from a tiled loop. They come from three routes of their own:

- o and lse from an exact forward: the gradients of L = Σ dO ∘ O, taken numerically to full
  precision with the complex step (attention evaluated in complex arithmetic, one query at a time
  over the keys it sees, one entry of q, k or v nudged by i·h per item of a batch axis);
- lse + c with that o: the same gradients times e^(−c) (P is multiplied by e^(−c), D is not);
- o and lse rounded to float32: the formulas applied densely, one query row at a time.

HBM traffic is counted from the set of visible (query, key) pairs, each mapped to its tile. A wrong
answer is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, expect_array, expect_integer, expect_sequence, fail

NAMES = ("dq", "dk", "dv")
H = 1e-20  # the complex step


# --------------------------------------------------------------------------- independent expected values


def seen(i: int, Tq: int, Tk: int, causal: bool) -> int:
    """How many keys query i sees: the first i + 1 + (Tk − Tq) when causal, else all of them."""
    return min(Tk, i + 1 + Tk - Tq) if causal else Tk


def exact_forward(q: np.ndarray, k: np.ndarray, v: np.ndarray, causal: bool) -> tuple[np.ndarray, np.ndarray]:
    """The forward's o and lse, one query at a time over the keys it sees."""
    Tq, d = q.shape
    Tk = k.shape[0]
    o, lse = np.zeros((Tq, v.shape[1])), np.zeros(Tq)
    for i in range(Tq):
        n = seen(i, Tq, Tk, causal)
        scores = k[:n] @ q[i] / np.sqrt(d)
        lse[i] = np.logaddexp.reduce(scores)
        o[i] = np.exp(scores - lse[i]) @ v[:n]
    return o, lse


def losses(q: np.ndarray, k: np.ndarray, v: np.ndarray, do: np.ndarray, causal: bool) -> np.ndarray:
    """L = Σ dO ⊙ O for a batch of complex inputs: q (B, Tq, d), k (B, Tk, d), v (B, Tk, dv)."""
    B, Tq, d = q.shape
    Tk = k.shape[1]
    total = np.zeros(B, dtype=complex)
    for i in range(Tq):
        n = seen(i, Tq, Tk, causal)
        scores = np.einsum("bc,bjc->bj", q[:, i], k[:, :n]) / np.sqrt(d)
        weights = np.exp(scores - scores.real.max(axis=1, keepdims=True))
        weights = weights / weights.sum(axis=1, keepdims=True)
        total += np.einsum("bj,bjc->bc", weights, v[:, :n]) @ do[i]
    return total


def numerical_gradients(q: np.ndarray, k: np.ndarray, v: np.ndarray, do: np.ndarray, causal: bool) -> list:
    """∂L/∂q, ∂L/∂k and ∂L/∂v by the complex step, every entry nudged in its own item of a batch."""
    arrays, grads = [q, k, v], []
    for which, array in enumerate(arrays):
        size = array.size
        batch = [np.broadcast_to(a.astype(complex), (size, *a.shape)).copy() for a in arrays]
        batch[which].reshape(size, size)[np.arange(size), np.arange(size)] += 1j * H
        grads.append((losses(*batch, do, causal).imag / H).reshape(array.shape))
    return grads


def formulas(q, k, v, o, do, lse, causal) -> list:
    """The statement's formulas on the o and lse given, densely, one query row at a time."""
    Tq, d = q.shape
    Tk = k.shape[0]
    dq, dk, dv = np.zeros(q.shape), np.zeros(k.shape), np.zeros(v.shape)
    for i in range(Tq):
        n = seen(i, Tq, Tk, causal)
        p = np.exp(k[:n] @ q[i] / np.sqrt(d) - lse[i])
        dv[:n] += np.outer(p, do[i])
        ds = p * (v[:n] @ do[i] - do[i] @ o[i])
        dq[i] = ds @ k[:n] / np.sqrt(d)
        dk[:n] += np.outer(ds, q[i]) / np.sqrt(d)
    return [dq, dk, dv]


def hbm_elems(Tq: int, Tk: int, d: int, dv: int, block_q: int, block_k: int, causal: bool) -> int:
    """The traffic model, with the tiles found from the visible pairs themselves."""
    tiles = {(i // block_q, j // block_k) for i in range(Tq) for j in range(seen(i, Tq, Tk, causal))}
    rows = [len(range(a, min(a + block_q, Tq))) for a in range(0, Tq, block_q)]
    cols = [len(range(b, min(b + block_k, Tk))) for b in range(0, Tk, block_k)]
    total = 2 * Tq * dv + Tq  # pre-pass
    total += sum(2 * n * (d + dv) for n in cols)  # per key block
    total += sum(rows[a] * (d + dv + 2) + 2 * rows[a] * d for a, _ in tiles)  # per computed tile
    return total


Case = tuple  # (q, k, v, o, do, lse, block_q, block_k, causal)


def want_of(case: Case, grads: list) -> tuple:
    q, k, v, _, _, _, block_q, block_k, causal = case
    return (*grads, hbm_elems(q.shape[0], k.shape[0], q.shape[1], v.shape[1], block_q, block_k, causal))


def exact(case: Case) -> tuple:
    """Expected answers when o and lse come from an exact forward (the complex step)."""
    q, k, v, _, do, _, _, _, causal = case
    return want_of(case, numerical_gradients(q, k, v, do, causal))


def by_formulas(case: Case) -> tuple:
    """Expected answers for any o and lse (the formulas, densely)."""
    return want_of(case, formulas(*case[:6], case[8]))


def tolerance(want: np.ndarray, case: Case) -> dict[str, float]:
    """rtol 1e-9; atol 1e-9 · max(max|expected|, max|dO|·(max|V| + max|O|)·max(max|Q|, max|K|) / √d)."""
    q, k, v, o, do = case[:5]
    spread = np.abs(do).max() * (np.abs(v).max() + np.abs(o).max()) * max(np.abs(q).max(), np.abs(k).max())
    return {"rtol": 1e-9, "atol": 1e-9 * max(float(np.abs(want).max()), float(spread / np.sqrt(q.shape[1])))}


def expect_form(got: Any, case: Case, what: str) -> list:
    """A tuple (or list) of three float64 arrays shaped like q, k and v, and an integer."""
    parts = list(expect_sequence(got, 4, what=f"{what}: the return value", hint="form"))
    for name, part, like in zip(NAMES, parts, case[:3], strict=False):
        if not isinstance(part, np.ndarray) or part.shape != like.shape or part.dtype != np.float64:
            expect_array(part, np.zeros(like.shape), what=f"{what}: {name}", dtype=np.float64, hint="form")
    hbm = parts[3]
    if isinstance(hbm, bool) or not isinstance(hbm, (int, np.integer)):
        expect_integer(hbm, 0, what=f"{what}: hbm_elems", hint="form")
    return parts


def expect_result(got: Any, want: tuple, case: Case, what: str, grads: bool = True) -> None:
    parts = expect_form(got, case, what)
    if grads:
        for name, part, w in zip(NAMES, parts, want, strict=False):
            expect_array(part, w, what=f"{what}: {name}", **tolerance(w, case))
    expect_integer(parts[3], want[3], what=f"{what}: hbm_elems")


def grade(student: Student, cases: list[Case], labels: list[str], route=exact, grads: bool = True) -> None:
    """Every case in one crossing, then each answer against its expected values."""
    results = student.flash_attention_bwd.each(cases)
    total = len(cases)
    for n, (case, label, got) in enumerate(zip(cases, labels, results, strict=True), start=1):
        expect_result(got, route(case), case, f"case {n} of {total} ({label})", grads)


# --------------------------------------------------------------------------- inputs


def random_case(rng, Tq, Tk, d, dv, block_q, block_k, causal, high=False) -> Case:
    """Scores spread over about ±10, or (high) all near 800 with a spread of a few units; o and lse exact."""
    q, k = rng.normal(size=(Tq, d)) * 2.0, rng.normal(size=(Tk, d)) * 2.0
    if high:
        q, k = q / 2.0, k / 2.0
        a = np.sqrt(800.0 * np.sqrt(d))  # q_i0 · k_j0 / √d ≈ 800
        q[:, 0] = a + rng.normal(size=Tq) * 0.05
        k[:, 0] = a + rng.normal(size=Tk) * 0.05
    v, do = rng.normal(size=(Tk, dv)), rng.normal(size=(Tq, dv))
    o, lse = exact_forward(q, k, v, causal)
    return q, k, v, o, do, lse, block_q, block_k, causal


def with_saved(case: Case, o: np.ndarray, lse: np.ndarray) -> Case:
    return (*case[:3], o, case[4], lse, *case[6:])


def shifted(case: Case, c: float) -> Case:
    return with_saved(case, case[3], case[5] + c)


def rounded(case: Case) -> Case:
    return with_saved(
        case, case[3].astype(np.float32).astype(np.float64), case[5].astype(np.float32).astype(np.float64)
    )


# --------------------------------------------------------------------------- the checks

LN3 = float(np.log(3.0))
ONE_KEY = (
    np.array([[1.0, 2.0]]), np.array([[3.0, -1.0]]), np.array([[2.0, -1.0]]),  # q, k, v
    np.array([[2.0, -1.0]]), np.array([[0.5, 3.0]]), np.array([1.0 / np.sqrt(2.0)]),  # o, do, lse
    1, 1, False,
)  # fmt: skip
TWO_KEYS = (
    np.array([[2.0, 0.0, 0.0, 0.0]]), np.array([[LN3, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]),  # q, k
    np.array([[4.0, 0.0], [0.0, 4.0]]), np.array([[3.0, 1.0]]), np.array([[1.0, 0.0]]),  # v, o, do
    np.array([np.log(4.0)]), 1, 1, True,
)  # fmt: skip
TWO_KEYS_WANT = (
    np.array([[0.375 * LN3, 0.0, 0.0, 0.0]]),
    np.array([[0.75, 0.0, 0.0, 0.0], [-0.75, 0.0, 0.0, 0.0]]),
    np.array([[0.75, 0.0], [0.25, 0.0]]),
    61,
)


@check("The worked example from the statement: o and lse from the exact forward", public=True, points=2,
       hint="softmax-backward")  # fmt: skip
def worked_example(student: Student) -> None:
    one, two = student.flash_attention_bwd.each([ONE_KEY, TWO_KEYS])
    want_one = (np.zeros((1, 2)), np.zeros((1, 2)), np.array([[0.5, 3.0]]), 23)
    expect_result(one, want_one, ONE_KEY, "one query, one key")
    expect_result(two, TWO_KEYS_WANT, TWO_KEYS, "one query, two keys, causal (it sees both)")


@check("The worked example with the saved lse raised by ln 2: every gradient halves", public=True, points=2,
       hint="given-lse")  # fmt: skip
def shifted_example(student: Student) -> None:
    case = shifted(TWO_KEYS, float(np.log(2.0)))
    want = (*(g / 2.0 for g in TWO_KEYS_WANT[:3]), 61)
    expect_result(student.flash_attention_bwd(*case), want, case, "one query, two keys, lse = ln 8")


@check("The HBM counts of the statement", public=True, points=2, hint="traffic")
def traffic_example(student: Student) -> None:
    rng = np.random.default_rng(130)
    cases = [
        random_case(rng, 4, 4, 2, 2, 2, 2, True),
        random_case(rng, 4, 4, 2, 2, 2, 2, False),
        random_case(rng, 2, 6, 3, 1, 1, 4, True),
    ]
    for case, count in zip(cases, (112, 132, 102), strict=True):
        assert hbm_elems(case[0].shape[0], case[1].shape[0], case[0].shape[1], case[2].shape[1], *case[6:]) == count
    labels = ["4 queries and keys, 2 × 2 tiles, causal", "4 queries and keys, 2 × 2 tiles, not causal",
              "2 queries, 6 keys, 1 × 4 tiles, causal"]  # fmt: skip
    results = student.flash_attention_bwd.each(cases)
    for case, label, got in zip(cases, labels, results, strict=True):
        expect_result(got, exact(case), case, label)


@check("Returns (dq, dk, dv, hbm_elems): float64 arrays shaped like q, k and v, and an int", hint="form")
def result_form(student: Student, rng: np.random.Generator) -> None:
    case = random_case(rng, 3, 5, 4, 2, 2, 2, False)
    expect_form(student.flash_attention_bwd(*case), case, "three queries, five keys")


@check("Without a mask: more keys than queries, fewer, as many; tiles of every size", hint="softmax-backward")
def full_attention(student: Student, rng: np.random.Generator) -> None:
    shapes = [
        ((5, 7, 4, 3, 2, 3), "more keys than queries"),
        ((6, 3, 2, 5, 4, 2), "more queries than keys"),
        ((4, 4, 8, 2, 4, 4), "one tile"),
        ((1, 6, 3, 2, 1, 4), "one query"),
        ((5, 1, 3, 4, 2, 1), "one key"),
        ((7, 8, 4, 3, 3, 5), "tiles that divide neither size"),
    ]
    cases = [random_case(rng, *shape, False) for shape, _ in shapes]
    grade(student, cases, [label for _, label in shapes])


@check("Causal, as many queries as keys", hint="causal")
def causal_square(student: Student, rng: np.random.Generator) -> None:
    shapes = [
        ((6, 6, 4, 3, 2, 2), "square tiles"),
        ((7, 7, 3, 2, 3, 2), "taller tiles than wide"),
        ((5, 5, 2, 4, 2, 4), "wider tiles than tall"),
        ((4, 4, 4, 2, 8, 8), "tiles larger than the sequence"),
        ((6, 6, 2, 2, 1, 1), "tiles of one element"),
    ]
    cases = [random_case(rng, *shape, True) for shape, _ in shapes]
    grade(student, cases, [label for _, label in shapes])


@check("Causal with fewer queries than keys (the queries are the last tokens)", hint="causal")
def causal_with_cache(student: Student, rng: np.random.Generator) -> None:
    shapes = [
        ((3, 7, 4, 3, 2, 3), "a short chunk after a cache"),
        ((1, 6, 4, 2, 1, 2), "one query"),
        ((2, 6, 3, 1, 1, 4), "tiles of one query and four keys"),
        ((4, 9, 2, 3, 3, 2), "tiles that divide neither size"),
        ((5, 6, 3, 2, 2, 3), "one key more than queries"),
    ]
    cases = [random_case(rng, *shape, True) for shape, _ in shapes]
    grade(student, cases, [label for _, label in shapes])


@check("The saved lse raised by 0.25: the gradients follow the given lse, not a recomputed one", hint="given-lse")
def given_lse_shifted(student: Student, rng: np.random.Generator) -> None:
    shapes = [
        ((4, 6, 3, 2, 2, 3, False), "not causal"),
        ((5, 5, 4, 3, 2, 2, True), "causal, square"),
        ((3, 7, 2, 2, 2, 4, True), "causal, fewer queries than keys"),
    ]
    plain = [random_case(rng, *shape) for shape, _ in shapes]
    scale = np.exp(-0.25)  # P shrinks by e^(−0.25) and D does not change: every gradient shrinks with P

    def route(case: Case) -> tuple:
        want = exact(case)  # the gradients of the exact forward: q, k, v and dO are those of the plain case
        return (*(g * scale for g in want[:3]), want[3])

    grade(student, [shifted(case, 0.25) for case in plain], [label for _, label in shapes], route)


@check("o and lse rounded to float32: the gradients follow the given o and lse", hint="given-lse")
def given_float32(student: Student, rng: np.random.Generator) -> None:
    shapes = [
        ((4, 6, 3, 2, 2, 2, True, True), "causal, every score far past where exp overflows"),
        ((5, 7, 3, 2, 2, 3, False, False), "not causal"),
        ((6, 6, 4, 3, 4, 2, True, False), "causal, square"),
        ((3, 8, 2, 4, 2, 3, True, False), "causal, fewer queries than keys"),
    ]
    cases = [rounded(random_case(rng, *shape)) for shape, _ in shapes]
    grade(student, cases, [label for _, label in shapes], by_formulas)


@check("Every score near 800, a few units apart: exp(s) alone overflows", hint="overflow")
def high_scores(student: Student, rng: np.random.Generator) -> None:
    shapes = [
        ((5, 5, 2, 3, 2, 2, True), "causal, square"),
        ((3, 6, 4, 2, 2, 4, True), "causal, fewer queries than keys"),
        ((4, 5, 3, 2, 3, 2, False), "not causal"),
    ]
    cases = [random_case(rng, *shape, high=True) for shape, _ in shapes]
    grade(student, cases, [label for _, label in shapes])


@check("hbm_elems for many shapes, tiles and masks", hint="traffic")
def traffic_counts(student: Student, rng: np.random.Generator) -> None:
    shapes = [
        ((5, 5, 3, 2, 2, 2, True), "causal, square, a short last tile"),
        ((5, 7, 2, 3, 2, 3, True), "causal, fewer queries than keys"),
        ((3, 8, 4, 1, 1, 4, True), "causal, one query per tile"),
        ((6, 6, 2, 2, 4, 3, True), "causal, unequal tiles"),
        ((7, 5, 3, 3, 3, 2, False), "not causal, more queries than keys"),
        ((2, 9, 2, 2, 5, 2, True), "causal, a query tile taller than the queries"),
        ((6, 6, 2, 4, 8, 8, True), "causal, one tile"),
        ((1, 6, 3, 2, 1, 1, True), "causal, one query"),
        ((8, 8, 2, 2, 3, 3, True), "causal, tiles that do not divide"),
    ]
    cases = [random_case(rng, *shape) for shape, _ in shapes]
    grade(student, cases, [label for _, label in shapes], exact, grads=False)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    case = random_case(rng, 4, 6, 3, 2, 2, 3, True)
    # The same arrays for two calls in one crossing: a call that changes its arguments in place
    # changes what the second call sees.
    first, second = student.flash_attention_bwd.each([case, case])
    want = exact(case)
    expect_result(first, want, case, "the first of two calls on the same arrays")
    parts = expect_form(second, case, "the second of two calls on the same arrays")
    if not all(np.array_equal(a, b) for a, b in zip(first[:3], parts[:3], strict=True)):
        fail("a second call on the same arrays gives other gradients: the first call changed its inputs in place")
    expect_result(second, want, case, "the second of two calls on the same arrays")
