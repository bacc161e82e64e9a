"""Hidden checks for "Temperature, Top-k and Top-p Sampling".

Expected values come from a different route than sorting: the softmax in log space, each token's
rank counted by comparing it with every other token (those more probable, then those as probable
with a lower id), and the probability mass ranked ahead of each token as a masked sum. Sampling
is checked by adding probabilities one at a time with exact rounding (math.fsum). A wrong answer
is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_integer, fail, values_shown

#: Cases must stay this far from a threshold that rounding could decide either way.
MARGIN = 1e-9


# --------------------------------------------------------------------------- independent reference


def ahead_of(p: np.ndarray) -> np.ndarray:
    """ahead[i, j]: token j ranks before token i (more probable, or as probable with a lower id)."""
    ids = np.arange(len(p))
    return (p[None, :] > p[:, None]) | ((p[None, :] == p[:, None]) & (ids[None, :] < ids[:, None]))


def expected_filter(logits: np.ndarray, temperature: float, top_k: int, top_p: float) -> tuple[np.ndarray, np.ndarray]:
    """The filtered probabilities, and which tokens the filters keep."""
    z = logits / temperature
    p = np.exp(z - np.logaddexp.reduce(z))
    ahead = ahead_of(p)
    keep = ahead.sum(axis=1) < top_k if top_k > 0 else np.ones(len(p), dtype=bool)
    q = np.where(keep, p, 0.0) / p[keep].sum()
    if top_p < 1.0:
        mass_ahead = (ahead & keep[None, :]).astype(np.float64) @ q
        # The case is decidable only if no cumulative sum, before or after a token, is at top_p.
        near = keep & ((np.abs(mass_ahead - top_p) < MARGIN) | (np.abs(mass_ahead + q - top_p) < MARGIN))
        assert not near.any(), f"a cumulative sum within {MARGIN} of top_p={top_p}: choose another case"
        keep &= mass_ahead < top_p
    return np.where(keep, q, 0.0) / q[keep].sum(), keep


def expected_sample(probs: np.ndarray, u: float) -> int:
    """The first token whose cumulative probability, summed exactly, is above u."""
    for i in range(len(probs)):
        total = math.fsum(probs[: i + 1])
        assert abs(total - u) >= MARGIN or total == u, f"u={u} within {MARGIN} of a cumulative sum"
        if total > u:
            return i
    raise AssertionError(f"u={u} is not below the total probability: choose another case")


def filters(logits: np.ndarray, top_k: int, top_p: float) -> str:
    """Which filters act on a case, in words: its k, p and temperature stay hidden."""
    top_k_acts = 0 < top_k < len(logits)
    if top_k_acts and top_p < 1.0:
        return "top-k and top-p"
    if top_k_acts:
        return "top-k"
    return "top-p" if top_p < 1.0 else "temperature only"


def expect_probs(got: Any, expected: tuple[np.ndarray, np.ndarray], what: str, lost_hint: str | None = None) -> None:
    """A float64 vector over the whole vocabulary; removed tokens exactly 0, kept ones above 0; the values.

    (A kept token may still be 0 where its probability underflows: it is then only compared.) A kept
    token given 0 gets ``lost_hint``, where the check knows the cause.
    """
    want, keep = expected
    V = len(want)
    if not isinstance(got, np.ndarray) or got.shape != (V,) or got.dtype != np.float64:
        fail(f"{what} should be a float64 array of shape ({V},), one probability per token, got {describe(got)}",
             hint="form")  # fmt: skip
    # Which token is wrong, and which way, is the kind of difference; its probabilities are shown in public only.
    removed = np.flatnonzero(~keep & (got != 0))
    if removed.size:
        i = int(removed[0])
        given = f"the probability {got[i]:.6g}" if values_shown() else "a probability other than 0"
        fail(f"{what} gives token {i} {given}, but it should be filtered out (probability 0)",
             hint=None, expected=want, got=got)  # fmt: skip
    lost = np.flatnonzero(keep & (want > 1e-300) & ~(got > 0))
    if lost.size:
        i = int(lost[0])
        if values_shown():
            message = f"{what} gives token {i} the probability {got[i]:.6g}, but it should be kept, with probability "
            message += f"{want[i]:.6g}"
        else:
            message = f"{what} gives token {i} no probability above 0, but it should be kept"
        fail(message, hint=lost_hint, expected=want, got=got)
    expect_array(got, want, what=what, rtol=1e-6, atol=1e-12, hint="form")


def filter_cases(
    student: Student, cases: list[tuple[np.ndarray, float, int, float, str]], lost_hint: str | None = None
) -> None:
    """Every case in one crossing, each answer checked against the independent computation."""
    results = student.filter_logits.each([(logits, t, k, p) for logits, t, k, p, _ in cases])
    for n, ((logits, t, k, p, label), got) in enumerate(zip(cases, results, strict=True), start=1):
        what = f"filter_logits's answer (case {n} of {len(cases)}: {label}, {filters(logits, k, p)})"
        expect_probs(got, expected_filter(logits, t, k, p), what, lost_hint)


# --------------------------------------------------------------------------- the checks

EXAMPLE = np.array([1.0, 3.0, 2.0, 3.0, 2.0, 0.0, 3.5])


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    cases = [(EXAMPLE, 2.0, 0, 1.0), (EXAMPLE, 2.0, 4, 1.0), (EXAMPLE, 2.0, 4, 0.7)]
    steps = ("the softmax", "after top-k", "after top-k and top-p")
    for (logits, t, k, p), step, got in zip(cases, steps, student.filter_logits.each(cases), strict=True):
        expect_probs(got, expected_filter(logits, t, k, p), f"filter_logits(logits, {t:g}, {k}, {p:g}), {step}")
    final, _ = expected_filter(EXAMPLE, 2.0, 4, 0.7)
    expect_integer(student.sample_token(final, 0.5), 3, what="sample_token(probs, 0.5)", hint="int")


@check("sample_token on exact probabilities, u at the edges", public=True)
def sample_exact(student: Student) -> None:
    probs = np.array([0.5, 0.25, 0.0, 0.25])
    first_zero = np.array([0.0, 0.0, 0.75, 0.25])
    cases = [(probs, 0.0), (probs, 0.5), (probs, 0.6), (probs, 0.75), (probs, 0.9), (first_zero, 0.0)]
    for (p, u), got in zip(cases, student.sample_token.each(cases), strict=True):
        expect_integer(got, expected_sample(p, u), what=f"sample_token({p.tolist()}, {u})", hint="int")


@check("filter_logits returns a float64 vector over the vocabulary; sample_token an int", hint="form")
def output_form(student: Student) -> None:
    logits = np.random.default_rng(1).normal(size=10)
    got = student.filter_logits(logits, 1.0, 3, 0.9)
    if not isinstance(got, np.ndarray) or got.shape != (10,) or got.dtype != np.float64:
        fail(f"filter_logits on 10 logits should return a float64 array of shape (10,), got {describe(got)}")
    token = student.sample_token(np.full(4, 0.25), 0.3)
    if isinstance(token, bool) or not isinstance(token, (int, np.integer)):
        fail(f"sample_token should return a token id, an int, got {describe(token)}", hint="int")


@check("Temperature alone (top_k = 0, top_p = 1.0)", hint="form")
def temperature_only(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = [(rng.normal(0, 2, size=V), t, 0, 1.0, f"{V} random logits")
             for V, t in ((5, 1.0), (8, 0.5), (8, 2.0), (50, 0.1), (50, 10.0), (1, 0.7), (1000, 1.3))]  # fmt: skip
    filter_cases(student, cases)


@check("Top-k alone, with ties at the k-th place", hint="form")
def top_k_only(student: Student) -> None:
    rng = np.random.default_rng(3)
    tied = np.array([0.5, 2.0, 1.0, 2.0, 1.0, 1.0, -1.0, 1.0])
    cases = [(tied, 1.0, k, 1.0, "logits with ties") for k in (1, 2, 3, 4, 6)]
    cases += [(np.zeros(6), 1.0, 2, 1.0, "six equal logits"), (np.zeros(6), 1.0, 5, 1.0, "six equal logits")]
    cases += [(rng.normal(size=20), 0.8, k, 1.0, "20 random logits") for k in (1, 7, 19, 20, 25)]
    filter_cases(student, cases)


@check("Top-p alone: the token that crosses top_p is kept", hint="form")
def top_p_only(student: Student) -> None:
    rng = np.random.default_rng(4)
    tied = np.log(np.array([1.0, 3.0, 2.0, 3.0, 1.0]))  # probabilities 0.1, 0.3, 0.2, 0.3, 0.1
    cases = [(tied, 1.0, 0, p, "logits with ties") for p in (0.05, 0.35, 0.65, 0.75, 0.85)]
    cases += [(rng.normal(size=30), 1.5, 0, p, "30 random logits") for p in (0.01, 0.2, 0.5, 0.9, 0.999)]
    filter_cases(student, cases)


@check("top_p = 1.0 keeps every token, even the least probable", hint="form")
def top_p_one_keeps_all(student: Student) -> None:
    # Probabilities 1/2, 1/4, 1/4 and then tiny ones: the running sum is exactly 1.0 before the tail.
    logits = np.array([np.log(2.0), 0.0, 0.0, -50.0, -60.0])
    cases = [(logits, 1.0, 0, 1.0, "logits with a tiny tail"), (logits, 1.0, 4, 1.0, "logits with a tiny tail")]
    # Tokens of probability 1e-22 are invisible to the comparison of values (and to the grader's
    # naming of mistakes): a dropped one is caught by expect_probs's exact-zero test, and its cause
    # is certain here, where top-p is the only filter that could drop it.
    filter_cases(student, cases, lost_hint="top-p-one")


@check("Top-k, then top-p on the renormalised distribution", hint="form")
def top_k_then_top_p(student: Student) -> None:
    rng = np.random.default_rng(5)
    cases = [(EXAMPLE, 1.0, 3, 0.7, "the statement's logits"), (EXAMPLE, 0.5, 5, 0.9, "the statement's logits")]
    for V, t, k, p in ((12, 1.0, 5, 0.8), (40, 0.7, 10, 0.9), (40, 2.0, 20, 0.6), (100, 1.0, 50, 0.95),
                       (100, 3.0, 30, 0.5), (9, 1.0, 1, 0.5)):  # fmt: skip
        cases.append((rng.normal(size=V), t, k, p, f"{V} random logits"))
    filter_cases(student, cases)


@check("Huge logits and a tiny temperature do not overflow", hint="stable-softmax")
def large_magnitudes(student: Student) -> None:
    rng = np.random.default_rng(6)
    huge = rng.normal(0, 1, size=16) * 1000.0
    cases = [
        (huge, 1.0, 0, 1.0, "logits in the thousands"),
        (huge, 50.0, 5, 0.9, "logits in the thousands"),
        (rng.normal(size=16), 0.005, 0, 1.0, "16 random logits"),
        (np.array([800.0, 799.0, 795.0, -800.0]), 1.0, 3, 0.99, "four logits far apart"),
    ]
    filter_cases(student, cases)


@check("sample_token on random distributions", hint="int")
def sample_random(student: Student) -> None:
    rng = np.random.default_rng(7)
    cases = []
    for V in (2, 5, 30, 200):
        probs = rng.dirichlet(np.ones(V))
        probs[rng.random(V) < 0.3] = 0.0  # some tokens filtered out
        probs /= probs.sum()
        cumulative = np.cumsum(probs)
        for u in rng.random(6) * cumulative[-1] * 0.999:
            if np.abs(cumulative - u).min() > 1e-6:
                cases.append((probs, float(u)))  # one probs array for six calls: it must stay as it was
    for n, ((probs, u), got) in enumerate(zip(cases, student.sample_token.each(cases), strict=True), start=1):
        what = f"the token drawn (draw {n} of {len(cases)}, from {len(probs)} tokens)"
        expect_integer(got, expected_sample(probs, u), what=what)


@check("The logits passed in are left unchanged", hint="no-mutation")
def logits_unchanged(student: Student) -> None:
    logits = np.random.default_rng(8).normal(size=8)
    # One logits array for two calls in one crossing: a first call that divides it by the
    # temperature in place hands the second call logits already divided.
    first, second = student.filter_logits.each([(logits, 2.0, 0, 1.0), (logits, 2.0, 0, 1.0)])
    want = expected_filter(logits, 2.0, 0, 1.0)
    twice = expected_filter(logits, 4.0, 0, 1.0)[0]
    if isinstance(second, np.ndarray) and second.shape == twice.shape and np.allclose(second, twice):
        fail("a second call with the same logits and temperature answered as if the logits had been divided by the "
             "temperature twice: the first call divided the logits in place")  # fmt: skip
    expect_probs(first, want, "filter_logits's answer, first call")
    expect_probs(second, want, "filter_logits's answer, second call with the same logits")
