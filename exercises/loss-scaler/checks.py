"""Hidden checks for "A Dynamic Loss Scaler".

The expected values never use numpy's float16: each scaled gradient is rounded to float16 here by
hand, in Python floats (the binade's step from ``math.frexp``, then ``round``, which rounds half to
even exactly), and the scale follows PyTorch's own update (``growth_tracker``, with a
``successful`` count that only a good step makes). Every case is asserted to keep |g·S| away from
65520, where the statement says the checks never go. A wrong answer is named by the grader, by
comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_ints, expect_sequence, fail

FP16_MAX = 65504.0
OVERFLOW = 65520.0  # halfway between 65504 and 2**16: from here on float16 rounds to inf

# --------------------------------------------------------------------------- independent expected values


def to_fp16(x: float) -> float:
    """x rounded to the nearest float16 (ties to even), as a Python float; inf past the range."""
    if not math.isfinite(x) or x == 0.0:
        return x
    a = abs(x)
    assert abs(a - OVERFLOW) > 1e-9 * OVERFLOW, "a check put |g·S| at float16's overflow edge"
    binade = max(math.frexp(a)[1] - 1, -14)  # a in [2**binade, 2**(binade + 1)); subnormals share 2**-14's step
    step = 2.0 ** (binade - 10)  # 11 significant bits
    rounded = round(a / step) * step  # a / step is exact (a power of two), round() ties to even
    return math.copysign(math.inf if rounded > FP16_MAX else rounded, x)


def simulate(params, grads, lr, init_scale, growth_factor, backoff_factor, growth_interval):
    """The statement's loop, element by element, with the scale updated as torch's _amp_update_scale_ does."""
    theta = [float(v) for v in np.asarray(params).ravel()]
    scale, growth_tracker = float(init_scale), 0
    scales, skipped = [], []
    for t, grad in enumerate(grads):
        scales.append(scale)
        g16 = [to_fp16(float(g) * scale) for g in np.asarray(grad).ravel()]
        found_inf = any(not math.isfinite(g) for g in g16)
        if not found_inf:
            theta = [p - lr * (g / scale) for p, g in zip(theta, g16, strict=True)]
        if found_inf:
            scale *= backoff_factor
            growth_tracker = 0
            skipped.append(t)
        else:
            successful = growth_tracker + 1
            if successful == growth_interval:
                scale *= growth_factor
                growth_tracker = 0
            else:
                growth_tracker = successful
    return np.array(theta, dtype=np.float64).reshape(np.shape(params)), scales, skipped


# --------------------------------------------------------------------------- comparing answers

Case = tuple[np.ndarray, list[np.ndarray], float, float, float, float, int]


def expect_result(result: Any, case: Case, what: str) -> None:
    params_out, scales, skipped = expect_sequence(result, 3, what=f"amp_sgd's return value ({what})", hint="form")
    want_params, want_scales, want_skipped = simulate(*case)
    if (
        not isinstance(params_out, np.ndarray)
        or params_out.dtype != np.float64
        or params_out.shape != want_params.shape
    ):
        expect_array(params_out, want_params, what=f"{what}: params_out", dtype=np.float64, hint="form")
    if type(scales) is not list:
        fail(f"{what}: scales should be a list of floats, got {describe(scales)}", hint="form")
    if len(scales) != len(want_scales):
        fail(f"{what}: scales should hold {len(want_scales)} floats, one per step, got {len(scales)}", hint="form")
    for t, value in enumerate(scales):
        if not isinstance(value, (float, np.floating)):
            fail(f"{what}: scales[{t}] should be a float, got {describe(value)}", hint="form")
    expect_ints(skipped, want_skipped, what=f"{what}: skipped")
    expect_array(np.array(scales, dtype=np.float64), want_scales, what=f"{what}: scales", rtol=1e-9, atol=1e-12)
    expect_array(params_out, want_params, what=f"{what}: params_out", rtol=1e-9, atol=1e-12)


def check_cases(student: Student, cases: list[tuple[Case, str]]) -> None:
    results = student.amp_sgd.each([case for case, _ in cases])
    for (case, what), result in zip(cases, results, strict=True):
        expect_result(result, case, what)


def random_grads(rng: np.random.Generator, T: int, shape: tuple[int, ...], lo: float, hi: float) -> list[np.ndarray]:
    """Gradients whose magnitudes spread evenly over the decades from 10**lo to 10**hi, with random signs."""
    return [10.0 ** rng.uniform(lo, hi, size=shape) * rng.choice([-1.0, 1.0], size=shape) for _ in range(T)]


def spoil(rng: np.random.Generator, grads: list[np.ndarray], count: int) -> None:
    """Make `count` of the gradients bad batches: one element inf, -inf or nan."""
    for t in rng.choice(len(grads), size=count, replace=False):
        index = tuple(int(rng.integers(0, n)) for n in grads[t].shape)
        grads[t][index] = rng.choice([np.inf, -np.inf, np.nan])


# --------------------------------------------------------------------------- the checks

WORKED: Case = (
    np.zeros(2),
    [np.array([3.0, 1e-6]), np.array([1.0, 1e-6]), np.array([0.5, 1e-9]), np.array([1.0, 1.0])],
    1.0,
    2.0**15,
    2.0,
    0.5,
    2,
)


@check("The worked examples from the statement", public=True, points=2, hint="growth")
def worked_example(student: Student) -> None:
    u1, u2 = 1074 * 2.0**-30, 275 * 2.0**-38  # the statement's hand-rounded float16 values, unscaled
    assert np.allclose(simulate(*WORKED)[0], [-2.5, -(u1 + u2 + 1.0)], rtol=1e-15, atol=0)
    assert simulate(*WORKED)[1:] == ([2.0**15, 2.0**14, 2.0**14, 2.0**15], [0])
    # The small gradient at scale 1 (it underflows) and at scale 2**16 (it survives), in the same crossing.
    at_one: Case = (np.zeros(1), [np.array([1e-9])], 1.0, 1.0, 2.0, 0.5, 2)
    at_big: Case = (np.zeros(1), [np.array([1e-9])], 1.0, 2.0**16, 2.0, 0.5, 2)
    check_cases(
        student,
        [
            (WORKED, "the worked example"),
            (at_one, "a gradient of 1e-9 at scale 1"),
            (at_big, "a gradient of 1e-9 at scale 2**16"),
        ],
    )


@check("amp_sgd returns (params_out, scales, skipped): a float64 array, a list of floats and a list of ints",
       public=True, hint="form")  # fmt: skip
def return_forms(student: Student) -> None:
    case: Case = (np.array([[1.0, -1.0], [0.5, 2.0]]), [np.full((2, 2), 0.25), np.full((2, 2), 1e5)], 0.5, 4.0, 2.0,
                  0.5, 1)  # fmt: skip
    check_cases(student, [(case, "a (2, 2) parameter, one good step and one overflow")])


@check("Random runs: gradients over ten decades, overflows and growth in turn", hint="growth")
def random_runs(student: Student, rng: np.random.Generator) -> None:
    cases = []
    shapes = [(3,), (5,), (1,), (2, 3), (4,), (6,), (2,), (3, 2), (8,), (4,)]
    for k, shape in enumerate(shapes):
        T = int(rng.integers(8, 40))
        grads = random_grads(rng, T, shape, -9.0, 1.0)
        if k % 3 == 2:
            spoil(rng, grads, int(rng.integers(1, 4)))
        init_scale = 2.0 ** int(rng.integers(8, 21))
        lr = float(rng.choice([1.0, 0.1, 0.01]))
        case = (rng.normal(size=shape), grads, lr, init_scale, 2.0, 0.5, int(rng.integers(1, 6)))
        cases.append((case, f"random run {k + 1} of {len(shapes)} ({T} steps, shape {shape})"))
    check_cases(student, cases)


@check("Bad batches: inf and nan gradients, in a row and between good steps", hint="skip")
def bad_batches(student: Student, rng: np.random.Generator) -> None:
    inf, nan = np.inf, np.nan
    ok = np.array([0.5, -0.25])
    bad = [np.array([inf, 0.5]), np.array([0.5, nan]), np.array([-inf, -inf]), np.array([nan, nan])]
    cases: list[tuple[Case, str]] = [
        # Two good steps, a bad one (the counter restarts), then good steps: growth comes three later.
        ((np.ones(2), [ok, ok, bad[0], ok, ok, ok, ok], 0.1, 8.0, 2.0, 0.5, 3), "a bad batch one step before growth"),
        ((np.ones(2), [bad[1], ok, bad[2], ok, ok, bad[3]], 0.1, 8.0, 2.0, 0.5, 2), "bad batches first and last"),
        ((np.ones(2), [bad[0], bad[1], bad[2], ok, ok, ok], 1.0, 16.0, 2.0, 0.5, 2), "three bad batches in a row"),
        ((np.ones(2), [bad[3], ok, ok, bad[0], ok], 0.5, 4.0, 2.0, 0.5, 1), "growth after every good step"),
    ]
    for k in range(4):
        T = int(rng.integers(10, 30))
        grads = random_grads(rng, T, (3,), -4.0, 0.5)  # normal float16 values, before and after scaling
        spoil(rng, grads, T // 3)
        case = (rng.normal(size=3), grads, 0.1, 2.0 ** int(rng.integers(2, 12)), 2.0, 0.5, int(rng.integers(1, 4)))
        cases.append((case, f"random run with bad batches {k + 1} of 4"))
    check_cases(student, cases)


@check("Small gradients: scaled before they are rounded, subnormals included", hint="cast-order")
def small_gradients(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k, init_exp in enumerate([0, 10, 16, 20, 24]):
        T = int(rng.integers(4, 12))
        grads = random_grads(rng, T, (4,), -10.0, -4.5)
        case = (np.zeros(4), grads, 1.0, 2.0**init_exp, 2.0, 0.5, 1000)
        cases.append((case, f"tiny gradients {k + 1} of 5 ({T} steps)"))
    check_cases(student, cases)


@check("Near the top of float16: 65504 is finite, a product from 65520 on overflows", hint="overflow")
def fp16_range_edge(student: Student) -> None:
    grads = [np.array([65519.0, -1.0]), np.array([-65510.0, 2.0]), np.array([65504.0, 0.0]), np.array([1.0, 65521.0]),
             np.array([-70000.0, 3.0]), np.array([100000.0, 1.0]), np.array([1.0, 1.0])]  # fmt: skip
    cases: list[tuple[Case, str]] = [
        ((np.zeros(2), grads, 1e-4, 1.0, 2.0, 0.5, 10), "products just under and just over the float16 range"),
        ((np.zeros(2), [np.array([3.0, 0.5])] * 4, 0.1, 2.0**15, 2.0, 0.5, 1), "a gradient that overflows only scaled"),
    ]
    check_cases(student, cases)


@check("Other factors and a scale that is not a power of two", hint="unscale")
def other_factors(student: Student, rng: np.random.Generator) -> None:
    cases = []
    settings = [(1000.0, 3.0, 0.25, 2), (3.0e4, 1.5, 0.7, 3), (7.0, 4.0, 0.5, 1), (2.0**12, 2.0, 0.125, 4)]
    for k, (init_scale, growth, backoff, interval) in enumerate(settings):
        T = int(rng.integers(10, 30))
        grads = random_grads(rng, T, (3,), -7.0, 1.0)
        case = (rng.normal(size=3), grads, float(rng.choice([1.0, 0.05])), init_scale, growth, backoff, interval)
        cases.append((case, f"other factors {k + 1} of {len(settings)}"))
    check_cases(student, cases)


@check("params and grads are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    params = rng.normal(size=3)
    grads = random_grads(rng, 6, (3,), -4.0, 0.0)
    case: Case = (params, grads, 0.5, 2.0**10, 2.0, 0.5, 2)
    # The same arrays for two calls in one crossing: a call that changes them changes the second answer.
    check_cases(student, [(case, "call 1 of 2 with the same arrays"), (case, "call 2 of 2 with the same arrays")])
