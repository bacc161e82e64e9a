"""Checks for "A ZeRO-Sharded AdamW Step".

The expected values come from plain, unsharded AdamW, one parameter at a time in Python floats: the
mean gradient from an exactly rounded sum (math.fsum), the moments from the shards put back
together, and the step in torch's arrangement, (lr / (1 − β1^t)) · m / (√v / √(1 − β2^t) + eps).
The expected shards are then cut from the full moments with np.array_split. The gradients are
drawn around a chosen mean, so that each rank's own gradient is far from the mean and every
parameter moves. A wrong answer is named by the grader, by comparing it with the exercise's mutants
on the same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail

# params, rank_grads, m_shards, v_shards, step, lr, beta1, beta2, eps, weight_decay
Args = tuple[Any, ...]
RTOL, ATOL = 1e-9, 1e-12

# --------------------------------------------------------------------------- independent expected values


def plain_adamw(args: Args) -> tuple[np.ndarray, list[np.ndarray], list[np.ndarray]]:
    """Unsharded AdamW on the mean gradient, parameter by parameter; the moments cut into shards at the end."""
    params, rank_grads, m_shards, v_shards, step, lr, beta1, beta2, eps, weight_decay = args
    p = len(rank_grads)
    m_full, v_full = np.concatenate(m_shards), np.concatenate(v_shards)
    correction1, correction2 = 1 - beta1**step, 1 - beta2**step
    theta, m, v = [], [], []
    for j in range(len(params)):
        g = math.fsum(float(grads[j]) for grads in rank_grads) / p
        m_j = beta1 * float(m_full[j]) + (1 - beta1) * g
        v_j = beta2 * float(v_full[j]) + (1 - beta2) * g * g
        denominator = math.sqrt(v_j) / math.sqrt(correction2) + eps
        theta.append(float(params[j]) * (1 - lr * weight_decay) - (lr / correction1) * m_j / denominator)
        m.append(m_j)
        v.append(v_j)
    return np.array(theta), np.array_split(np.array(m), p), np.array_split(np.array(v), p)


def random_args(rng: np.random.Generator, n: int, p: int, step: int, lr: float, betas: tuple[float, float],
                eps: float, weight_decay: float, *, scale: float = 1.0, fresh: bool = False) -> Args:  # fmt: skip
    """A case whose mean gradient has magnitudes in [0.3, 1.5]·scale, with ranks far from the mean.

    The parameters are in ±[0.5, 2] and, unless fresh (zero moments), v is of the order of g², so
    every parameter moves by about lr and no quantity is near 0 where a wrong eps or decay would hide.
    """
    mean = rng.choice([-1.0, 1.0], size=n) * rng.uniform(0.3, 1.5, size=n) * scale
    noise = rng.normal(size=(p, n)) * scale
    noise -= noise.mean(axis=0)  # the ranks differ, their mean is the chosen one
    rank_grads = [mean + noise[q] for q in range(p)]
    params = rng.choice([-1.0, 1.0], size=n) * rng.uniform(0.5, 2.0, size=n)
    if fresh:
        m, v = np.zeros(n), np.zeros(n)
    else:
        m = rng.normal(size=n) * 0.5 * scale
        v = rng.uniform(0.3, 2.0, size=n) * scale**2
    return (params, rank_grads, np.array_split(m, p), np.array_split(v, p), step, lr, *betas, eps, weight_decay)


# --------------------------------------------------------------------------- comparing answers


def expect_step(got: Any, want: tuple[np.ndarray, list[np.ndarray], list[np.ndarray]], what: str) -> None:
    """The form first (a tuple; an array (n,); two lists of p shard-shaped float64 arrays), then the values."""
    want_params, want_m, want_v = want
    if not isinstance(got, tuple):
        fail(f"the return value ({what}) should be a tuple (new_params, new_m_shards, new_v_shards), "
             f"got {describe(got)}", hint="form", got=got)  # fmt: skip
    new_params, new_m, new_v = expect_sequence(got, 3, what=f"the return value ({what})", hint="form")
    expect_array(new_params, want_params, what=f"new_params ({what})", rtol=RTOL, atol=ATOL, dtype=np.float64,
                 hint="form")  # fmt: skip
    for name, shards, wanted in (("new_m_shards", new_m, want_m), ("new_v_shards", new_v, want_v)):
        if type(shards) is not list or len(shards) != len(wanted):
            fail(f"{name} ({what}) should be a list of {len(wanted)} arrays, one per rank, got {describe(shards)}",
                 hint="form", got=got)  # fmt: skip
        for r, (shard, want) in enumerate(zip(shards, wanted, strict=True)):
            if not isinstance(shard, np.ndarray) or shard.shape != want.shape:
                shown = f"shape {shard.shape}" if isinstance(shard, np.ndarray) else describe(shard)
                fail(f"{name}[{r}] ({what}) should be rank {r}'s shard, an array of shape {want.shape}, got {shown}",
                     hint="shards", got=got)  # fmt: skip
            expect_array(shard, want, what=f"{name}[{r}] ({what})", rtol=RTOL, atol=ATOL, dtype=np.float64,
                         hint="form")  # fmt: skip


def grade(student: Student, cases: list[tuple[Args, str]]) -> None:
    """Every case in one crossing, each compared with plain AdamW."""
    results = student.zero_adam_step.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        expect_step(got, plain_adamw(args), what)


def shape_label(args: Args) -> str:
    return f"n = {len(args[0])} on {len(args[1])} ranks"


# --------------------------------------------------------------------------- the checks


@check("The worked examples: one step from zero moments, with eps 1e-8 and 0.1, and weight decay alone",
       public=True, points=2, hint="mean")  # fmt: skip
def worked_example(student: Student) -> None:
    params = np.array([1.0, -2.0, 3.0])
    grads = [np.array([0.2, -0.4, 0.0]), np.array([0.6, 0.0, 0.0])]
    zeros = [np.zeros(2), np.zeros(1)]
    step = (1 - 0.1 * 0.4 / (0.4 + 1e-8), -2 + 0.1 * 0.2 / (0.2 + 1e-8), 3.0)
    cases = [
        ((params, grads, zeros, zeros, 1, 0.1, 0.9, 0.999, 1e-8, 0.0),
         (np.array(step), [np.array([0.04, -0.02]), np.array([0.0])], [np.array([1.6e-4, 4e-5]), np.array([0.0])]),
         "step 1 from zero moments"),
        ((params, grads, zeros, zeros, 1, 0.1, 0.9, 0.999, 0.1, 0.0),
         (np.array([0.92, -2 + 0.1 * 0.2 / 0.3, 3.0]), [np.array([0.04, -0.02]), np.array([0.0])],
          [np.array([1.6e-4, 4e-5]), np.array([0.0])]),
         "the same step with eps 0.1"),
        ((params, [np.zeros(3), np.zeros(3)], zeros, zeros, 1, 0.1, 0.9, 0.999, 1e-8, 0.5),
         (np.array([0.95, -1.9, 2.85]), [np.zeros(2), np.zeros(1)], [np.zeros(2), np.zeros(1)]),
         "zero gradients, weight_decay 0.5"),
    ]  # fmt: skip
    results = student.zero_adam_step.each([args for args, _, _ in cases])
    for (_, want, what), got in zip(cases, results, strict=True):
        expect_step(got, want, what)


@check("Returns a tuple: a float64 array (n,) and two lists of p shard-shaped float64 arrays", hint="form")
def result_form(student: Student, rng: np.random.Generator) -> None:
    cases = [random_args(rng, 7, 3, 2, 0.01, (0.9, 0.999), 1e-8, 0.0),
             random_args(rng, 2, 4, 1, 0.01, (0.9, 0.999), 1e-8, 0.0, fresh=True)]  # fmt: skip
    grade(student, [(args, shape_label(args)) for args in cases])


@check("The reduce-scatter averages the ranks' gradients", hint="mean")
def averaged_gradient(student: Student, rng: np.random.Generator) -> None:
    cases = [random_args(rng, n, p, 3, 0.02, (0.9, 0.999), 1e-8, 0.0) for n, p in ((5, 2), (7, 3), (9, 4))]
    grade(student, [(args, shape_label(args)) for args in cases])


@check("Every rank's gradient enters every slice's update", hint="reduce")
def every_rank_gradient(student: Student, rng: np.random.Generator) -> None:
    cases = [random_args(rng, n, p, 1, 0.02, (0.9, 0.999), 1e-8, 0.0, fresh=True) for n, p in ((6, 2), (8, 4))]
    # One rank holds the whole gradient and the others none: a rank's local gradient is 0 or p·g.
    params, grads, m, v, *rest = random_args(rng, 6, 3, 4, 0.02, (0.9, 0.999), 1e-8, 0.0)
    lone = [np.zeros(6), sum(grads), np.zeros(6)]
    cases.append((params, lone, m, v, *rest))
    grade(student, [(args, shape_label(args)) for args in cases])


@check("Each rank owns a contiguous slice, the longer ones first", hint="contiguous")
def contiguous_slices(student: Student, rng: np.random.Generator) -> None:
    cases = [
        random_args(rng, n, p, 5, 0.02, (0.9, 0.99), 1e-8, 0.0) for n, p in ((7, 3), (10, 4), (5, 2), (11, 5), (9, 3))
    ]
    grade(student, [(args, shape_label(args)) for args in cases])


@check("Weight decay is decoupled and applied to θ before the Adam step", hint="decoupled")
def decoupled_decay(student: Student, rng: np.random.Generator) -> None:
    cases = [
        random_args(rng, 6, 2, 1, 0.1, (0.9, 0.999), 1e-12, 0.1, fresh=True),
        random_args(rng, 7, 3, 5, 0.05, (0.9, 0.999), 1e-12, 0.5),
        random_args(rng, 4, 4, 20, 0.2, (0.8, 0.95), 1e-12, 0.05),
    ]
    grade(student, [(args, shape_label(args)) for args in cases])


@check("Bias corrections use β to the power of this step", hint="bias")
def bias_correction(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for step, betas in ((1, (0.9, 0.999)), (2, (0.9, 0.999)), (3, (0.8, 0.95)), (10, (0.5, 0.9)),
                        (100, (0.9, 0.99)), (1000, (0.9, 0.999))):  # fmt: skip
        args = random_args(rng, 5, 2, step, 0.01, betas, 1e-8, 0.0, fresh=step == 1)
        cases.append((args, f"step {step} of a run, {shape_label(args)}"))
    grade(student, cases)


@check("eps is added after the square root (gradients near 1e-3, eps 1e-3)", hint="eps")
def eps_outside(student: Student, rng: np.random.Generator) -> None:
    cases = [
        random_args(rng, 6, 2, 1, 0.01, (0.9, 0.999), 1e-3, 0.0, scale=1e-3, fresh=True),
        random_args(rng, 7, 3, 8, 0.01, (0.9, 0.999), 1e-3, 0.0, scale=2e-3),
        random_args(rng, 5, 5, 3, 0.001, (0.9, 0.99), 1e-2, 0.0, scale=1e-2),
    ]
    grade(student, [(args, shape_label(args)) for args in cases])


@check("Fewer parameters than ranks: empty slices update nothing", hint="shards")
def empty_slices(student: Student, rng: np.random.Generator) -> None:
    cases = [random_args(rng, n, p, 2, 0.01, (0.9, 0.999), 1e-8, 0.0) for n, p in ((1, 3), (2, 4), (3, 5), (1, 1))]
    grade(student, [(args, shape_label(args)) for args in cases])


@check("Step after step, the sharded optimizer follows plain AdamW", points=2, hint="mean")
def many_steps(student: Student, rng: np.random.Generator) -> None:
    """Six steps from zero moments; each call starts from plain AdamW's state after the step before."""
    args = random_args(rng, 8, 3, 1, 0.02, (0.9, 0.999), 1e-8, 0.0, fresh=True)
    params, _, m, v = args[:4]
    cases = []
    for step in range(1, 7):
        draw = random_args(rng, 8, 3, step, 0.02, (0.9, 0.999), 1e-8, 0.0)
        now = (params, draw[1], m, v, step, *args[5:])
        cases.append((now, f"step {step} of 6, {shape_label(now)}"))
        params, m, v = plain_adamw(now)
    grade(student, cases)


@check("params, rank_grads, m_shards and v_shards are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    args = random_args(rng, 7, 3, 4, 0.02, (0.9, 0.999), 1e-8, 0.0)
    # The same arrays for both calls of one batch: a first call that updates them in place changes the second's input.
    grade(student, [(args, "the first call"), (args, "a second call with the same arrays")])
