"""Checks for "Gradient Clipping under Tensor Parallelism".

The expected values come from the model as one flat vector: every shard of every rank and rank 0's
copy of each replicated tensor, concatenated. Its 2-norm is the square root of an exactly rounded
sum of squares (math.fsum), its inf norm the largest absolute value. The models are built with a
chosen norm (from 1e-3 to 1e3) and a chosen ratio to max_norm, so the clipping and the 1e-6 both
show. A wrong answer is named by the grader, by comparing it with the exercise's mutants on the
same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_float, expect_sequence, fail

INF = math.inf
Grads = list[list[np.ndarray]]
# A tensor of the model: ("rep", shape), the same on every rank, or ("shard", [shape of rank 0, rank 1, …]).
Layout = list[tuple[str, Any]]
Case = tuple[Grads, list[bool], float, float, str]

# --------------------------------------------------------------------------- independent expected values


def flat_model(grads: Grads, replicated: list[bool]) -> np.ndarray:
    """The whole model's gradient as one vector: all the shards, and each replica once (rank 0's)."""
    parts = [grads[0][i].ravel() for i, rep in enumerate(replicated) if rep]
    parts += [rank[i].ravel() for rank in grads for i, rep in enumerate(replicated) if not rep]
    return np.concatenate(parts)


def model_norm(grads: Grads, replicated: list[bool], norm_type: float) -> float:
    flat = flat_model(grads, replicated)
    if norm_type == INF:
        return float(np.abs(flat).max()) if flat.size else 0.0
    return math.sqrt(math.fsum((flat * flat).tolist()))


def expected(grads: Grads, replicated: list[bool], max_norm: float, norm_type: float) -> tuple[Grads, float]:
    total = model_norm(grads, replicated, norm_type)
    coef = min(max_norm / (total + 1e-6), 1.0)
    return [[g * coef for g in rank] for rank in grads], total


def build(rng: np.random.Generator, p: int, layout: Layout, norm: float, norm_type: float = 2.0,
          rank_scales: list[float] | None = None) -> tuple[Grads, list[bool]]:  # fmt: skip
    """A model of p ranks with this layout, scaled to the given norm; rank r's shards drawn rank_scales[r] larger."""
    scales = rank_scales or [1.0] * p
    grads: Grads = [[] for _ in range(p)]
    replicated = []
    for kind, shape in layout:
        if kind == "rep":
            values = rng.normal(size=shape)
            for rank in grads:
                rank.append(values.copy())
        else:
            for r, rank in enumerate(grads):
                rank.append(rng.normal(size=shape[r]) * scales[r])
        replicated.append(kind == "rep")
    now = model_norm(grads, replicated, norm_type)
    if now > 0:
        grads = [[g * (norm / now) for g in rank] for rank in grads]
    return grads, replicated


# --------------------------------------------------------------------------- comparing answers


def expect_result(got: Any, case: Case) -> None:
    grads, replicated, max_norm, norm_type, what = case
    want_clipped, want_total = expected(grads, replicated, max_norm, norm_type)
    if not isinstance(got, tuple):
        fail(f"the return value ({what}) should be a tuple (clipped, total_norm), got {describe(got)}", hint="form")
    clipped, total = expect_sequence(got, 2, what=f"the return value ({what})", hint="form")
    if type(clipped) is not list or len(clipped) != len(grads):
        fail(f"clipped ({what}) should be a list with one list per rank ({len(grads)}), got {describe(clipped)}",
             hint="form")  # fmt: skip
    for r, (rank, want_rank) in enumerate(zip(clipped, want_clipped, strict=True)):
        if type(rank) is not list or len(rank) != len(want_rank):
            fail(f"clipped[{r}] ({what}) should be a list of {len(want_rank)} arrays, got {describe(rank)}",
                 hint="form")  # fmt: skip
        for i, (g, want) in enumerate(zip(rank, want_rank, strict=True)):
            if not isinstance(g, np.ndarray) or g.dtype != np.float64 or g.shape != want.shape:
                expect_array(g, want, what=f"clipped[{r}][{i}] ({what})", dtype=np.float64, hint="form")
    expect_float(total, want_total, what=f"total_norm ({what})", rtol=1e-9, atol=0.0, hint="form")
    for r, (rank, want_rank) in enumerate(zip(clipped, want_clipped, strict=True)):
        for i, (g, want) in enumerate(zip(rank, want_rank, strict=True)):
            expect_array(g, want, what=f"clipped[{r}][{i}] ({what})", rtol=1e-9, atol=0.0, dtype=np.float64)


def grade(student: Student, cases: list[Case]) -> None:
    """Every case in one crossing, each compared with the flat model's answer."""
    results = student.clip_grad_norm_tp.each([case[:4] for case in cases])
    for case, got in zip(cases, results, strict=True):
        expect_result(got, case)


def labelled(cases: list[tuple[Grads, list[bool], float, float]], name: str) -> list[Case]:
    return [
        (grads, replicated, max_norm, norm_type, f"{name} {n} of {len(cases)}, {len(grads)} ranks")
        for n, (grads, replicated, max_norm, norm_type) in enumerate(cases, start=1)
    ]


def example() -> tuple[Grads, list[bool]]:
    return [[np.array([3.0]), np.array([12.0])], [np.array([4.0]), np.array([12.0])]], [False, True]


# --------------------------------------------------------------------------- the checks


@check("The worked example: a norm of 13 clipped to 6.5, a max_norm of 20, and the inf norm", public=True,
       points=2, hint="replica-once")  # fmt: skip
def worked_example(student: Student) -> None:
    grads, replicated = example()
    small = [[g * 1e-4 for g in rank] for rank in grads]
    half, inf_coef, tiny = 6.5 / (13 + 1e-6), 6.5 / (12 + 1e-6), 6.5e-4 / (1.3e-3 + 1e-6)
    cases = [
        (grads, 6.5, 2.0, [[3 * half, 12 * half], [4 * half, 12 * half]], 13.0, "a 2-norm of 13, max_norm 6.5"),
        (grads, 20.0, 2.0, [[3.0, 12.0], [4.0, 12.0]], 13.0, "a 2-norm of 13, max_norm 20"),
        (grads, 6.5, INF, [[3 * inf_coef, 12 * inf_coef], [4 * inf_coef, 12 * inf_coef]], 12.0,
         "the inf norm, max_norm 6.5"),
        (small, 6.5e-4, 2.0, [[3e-4 * tiny, 1.2e-3 * tiny], [4e-4 * tiny, 1.2e-3 * tiny]], 1.3e-3,
         "scaled down 10^4 times, max_norm 6.5e-4"),
    ]  # fmt: skip
    results = student.clip_grad_norm_tp.each([(g, replicated, m, t) for g, m, t, *_ in cases])
    for (_, _, _, want, want_total, what), got in zip(cases, results, strict=True):
        if not isinstance(got, tuple):
            fail(f"the return value ({what}) should be a tuple (clipped, total_norm), got {describe(got)}",
                 hint="form", got=got)  # fmt: skip
        clipped, total = expect_sequence(got, 2, what=f"the return value ({what})", hint="form")
        expect_float(total, want_total, what=f"total_norm ({what})", rtol=1e-9, atol=0.0, hint="form")
        if type(clipped) is not list or len(clipped) != 2 or any(type(r) is not list or len(r) != 2 for r in clipped):
            fail(f"clipped ({what}) should be a list of 2 lists of arrays, got {describe(clipped)}", hint="form",
                 got=got)  # fmt: skip
        for r in range(2):
            for i in range(2):
                expect_array(clipped[r][i], [want[r][i]], what=f"clipped[{r}][{i}] ({what})", rtol=1e-9, atol=0.0,
                             dtype=np.float64, hint="form")  # fmt: skip


@check("Returns a tuple: a list of lists of float64 arrays shaped like grads, and a float", hint="form")
def result_form(student: Student, rng: np.random.Generator) -> None:
    layout = [("shard", [(2, 3), (1, 3), (0, 3)]), ("rep", (4,)), ("shard", [(2,), (0,), (3,)]), ("rep", (2, 2))]
    grads, replicated = build(rng, 3, layout, 5.0)
    small, small_rep = build(rng, 2, [("rep", (3,)), ("shard", [(2, 2), (2, 2)])], 0.5)
    tiny, tiny_rep = build(rng, 2, [("shard", [(3,), (0,)]), ("rep", (1, 2))], 4e-3)
    grade(student, labelled([(grads, replicated, 2.0, 2.0), (small, small_rep, 1.0, 2.0),
                             (tiny, tiny_rep, 1e-3, 2.0)], "model"))  # fmt: skip


@check("A replicated tensor counts once in the 2-norm, however many ranks hold it", hint="replica-once")
def replicas_counted_once(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, layout, norm, max_norm in [
        (2, [("shard", [(4,), (4,)]), ("rep", (3,)), ("shard", [(2, 3), (2, 3)]), ("rep", (5,))], 7.0, 1.0),
        (3, [("rep", (2, 2)), ("shard", [(3,), (2,), (2,)]), ("rep", (1,))], 5e-3, 1e-3),
        (4, [("rep", (6,)), ("shard", [(1,), (1,), (1,), (0,)])], 40.0, 3.0),
        (1, [("rep", (3,)), ("shard", [(5,)])], 2.0, 0.5),
    ]:
        grads, replicated = build(rng, p, layout, norm)
        cases.append((grads, replicated, max_norm, 2.0))
    grade(student, labelled(cases, "model"))


@check("Every rank is clipped by the same, global coefficient", hint="global")
def one_coefficient(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, layout, norm, max_norm, norm_type, scales in [
        (2, [("shard", [(5,), (5,)]), ("rep", (2,))], 10.0, 4.0, 2.0, [1.0, 8.0]),
        (3, [("shard", [(3,), (4,), (2,)]), ("shard", [(2, 2), (2, 2), (2, 2)])], 3e-3, 1e-3, 2.0, [0.1, 1.0, 5.0]),
        (4, [("rep", (3,)), ("shard", [(2,), (3,), (2,), (3,)])], 20.0, 2.5, 2.0, [4.0, 1.0, 0.5, 2.0]),
        (3, [("shard", [(4,), (4,), (4,)]), ("rep", (2,))], 6.0, 1.5, INF, [1.0, 3.0, 0.2]),
    ]:
        grads, replicated = build(rng, p, layout, norm, norm_type, scales)
        cases.append((grads, replicated, max_norm, norm_type))
    grade(student, labelled(cases, "model"))


@check("The 2-norm adds the ranks' squares and takes one square root", hint="squares")
def squares_then_root(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, layout, norm, max_norm in [
        (2, [("shard", [(6,), (6,)])], 12.0, 5.0),
        (3, [("shard", [(2, 2), (3, 2), (1, 2)]), ("shard", [(3,), (3,), (3,)])], 8e-3, 3e-3),
        (4, [("shard", [(4,), (4,), (4,), (4,)]), ("rep", (2,))], 100.0, 30.0),
    ]:
        grads, replicated = build(rng, p, layout, norm)
        cases.append((grads, replicated, max_norm, 2.0))
    grade(student, labelled(cases, "model"))


@check("The coefficient keeps the 1e-6 (norms near 1e-3)", hint="eps")
def epsilon(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, layout, norm, max_norm, norm_type in [
        (2, [("shard", [(4,), (3,)]), ("rep", (2,))], 1e-3, 5e-4, 2.0),
        (3, [("rep", (3,)), ("shard", [(2,), (2,), (2,)])], 2e-3, 1e-3, 2.0),
        (2, [("shard", [(5,), (5,)])], 1e-3, 2e-4, INF),
    ]:
        grads, replicated = build(rng, p, layout, norm, norm_type)
        cases.append((grads, replicated, max_norm, norm_type))
    grade(student, labelled(cases, "model"))


@check("Gradients whose norm is below max_norm, or zero, are left as they are", hint="no-upscale")
def small_gradients_unchanged(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, layout, norm, max_norm, norm_type in [
        (2, [("shard", [(4,), (4,)]), ("rep", (3,))], 1e-3, 1.0, 2.0),
        (3, [("rep", (2,)), ("shard", [(3,), (2,), (1,)])], 0.9, 1.0, 2.0),
        (2, [("shard", [(3, 2), (3, 2)])], 500.0, 1000.0, 2.0),
        (3, [("shard", [(4,), (4,), (4,)])], 2.0, 5.0, INF),
    ]:
        grads, replicated = build(rng, p, layout, norm, norm_type)
        cases.append((grads, replicated, max_norm, norm_type))
    zeros = [[np.zeros(3), np.zeros((2, 2))] for _ in range(2)]
    empty = [[np.zeros(0), np.zeros(0)] for _ in range(3)]
    cases += [(zeros, [False, True], 1.0, 2.0), (empty, [False, False], 0.5, 2.0)]
    grade(student, labelled(cases, "model"))


@check("total_norm is the norm before clipping", hint="before")
def norm_before_clipping(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, layout, norm, max_norm, norm_type in [
        (2, [("shard", [(3,), (3,)]), ("rep", (2,))], 3e-3, 1e-3, 2.0),
        (3, [("shard", [(2,), (4,), (3,)])], 250.0, 10.0, 2.0),
        (2, [("rep", (4,)), ("shard", [(2,), (2,)])], 40.0, 8.0, INF),
    ]:
        grads, replicated = build(rng, p, layout, norm, norm_type)
        cases.append((grads, replicated, max_norm, norm_type))
    grade(student, labelled(cases, "model"))


@check("Replicated tensors are clipped too", hint="clip-replicas")
def replicas_clipped(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, layout, norm, max_norm, norm_type in [
        (2, [("rep", (4,)), ("shard", [(3,), (3,)]), ("rep", (2, 2))], 9e-3, 2e-3, 2.0),
        (4, [("shard", [(2,), (2,), (2,), (2,)]), ("rep", (3,))], 1000.0, 100.0, 2.0),
        (3, [("rep", (5,)), ("shard", [(1,), (2,), (3,)])], 15.0, 5.0, INF),
    ]:
        grads, replicated = build(rng, p, layout, norm, norm_type)
        cases.append((grads, replicated, max_norm, norm_type))
    grade(student, labelled(cases, "model"))


@check("The inf norm is the largest absolute value on any rank, or 0.0 without elements", hint="inf")
def inf_norm(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, layout, norm, max_norm in [
        (2, [("shard", [(3,), (3,)]), ("rep", (2,))], 5.0, 1.0),
        (3, [("shard", [(0,), (2,), (4,)]), ("rep", (0,)), ("shard", [(2, 2), (0, 2), (1, 2)])], 0.02, 0.005),
        (4, [("rep", (3,)), ("shard", [(2,), (0,), (2,), (2,)])], 800.0, 1000.0),
        (1, [("shard", [(6,)]), ("rep", (2,))], 3.0, 2.0),
    ]:
        grads, replicated = build(rng, p, layout, norm, INF)
        cases.append((grads, replicated, max_norm, INF))
    # The largest magnitude is negative, on the last rank; and a model with no elements at all.
    negative = [[np.array([0.5, -1.0]), np.array([2.0])], [np.array([1.5]), np.array([2.0])],
                [np.array([-7.0, 3.0]), np.array([2.0])]]  # fmt: skip
    empty = [[np.zeros(0), np.zeros((0, 3))] for _ in range(2)]
    cases += [(negative, [False, True], 1.0, INF), (empty, [False, True], 1.0, INF)]
    grade(student, labelled(cases, "model"))


@check("grads is left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    grads, replicated = build(rng, 3, [("shard", [(3,), (2,), (3,)]), ("rep", (2,))], 6e-3)
    # The same arrays for both calls of one batch: a first call that scales them in place changes the second's input.
    cases = [(grads, replicated, 2e-3, 2.0, "the first call"),
             (grads, replicated, 2e-3, 2.0, "a second call, same grads")]  # fmt: skip
    grade(student, cases)
