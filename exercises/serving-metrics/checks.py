"""Checks for "Measuring a Serving Trace".

Every expected figure is computed here in exact rational arithmetic (fractions.Fraction of the
given floats), with the percentile interpolated by hand from its definition, and only then turned
into a float. A wrong answer is named by the grader, by comparing it with the exercise's mutants on
the same calls.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from grader.checks import Student, check, expect_dict, expect_float

KEYS = ["mean_ttft", "p99_ttft", "mean_tpot", "mean_itl", "p99_itl", "throughput", "goodput", "slo_attainment"]
Trace = tuple[list[Any], list[list[Any]], Any, Any]

# --------------------------------------------------------------------------- independent reference


def latencies(trace: Trace) -> tuple[list[Fraction], list[Fraction | None], list[Fraction]]:
    """Exact TTFTs, TPOTs (None for a one-token request) and pooled gaps."""
    arrivals, token_times, _, _ = trace
    ttft, tpot, gaps = [], [], []
    for a, times in zip(arrivals, token_times, strict=True):
        ts = [Fraction(float(t)) for t in times]
        ttft.append(ts[0] - Fraction(float(a)))
        tpot.append((ts[-1] - ts[0]) / (len(ts) - 1) if len(ts) >= 2 else None)
        gaps.extend(ts[j] - ts[j - 1] for j in range(1, len(ts)))
    return ttft, tpot, gaps


def percentile99(xs: list[Fraction]) -> Fraction:
    if not xs:
        return Fraction(0)
    s = sorted(xs)
    h = (len(s) - 1) * Fraction(99, 100)
    lo = h.numerator // h.denominator
    if lo + 1 >= len(s):
        return s[lo]
    return s[lo] + (h - lo) * (s[lo + 1] - s[lo])


def average(xs: list[Fraction]) -> Fraction:
    return sum(xs, Fraction(0)) / len(xs) if xs else Fraction(0)


def expected(trace: Trace) -> dict[str, float]:
    arrivals, token_times, slo_ttft, slo_tpot = trace
    ttft, tpot, gaps = latencies(trace)
    good = sum(
        1
        for f, p in zip(ttft, tpot, strict=True)
        if f <= Fraction(float(slo_ttft)) and (p is None or p <= Fraction(float(slo_tpot)))
    )
    end = max(Fraction(float(times[-1])) for times in token_times)
    duration = end - min(Fraction(float(a)) for a in arrivals)
    tokens = sum(len(times) for times in token_times)
    values = {
        "mean_ttft": average(ttft),
        "p99_ttft": percentile99(ttft),
        "mean_tpot": average([p for p in tpot if p is not None]),
        "mean_itl": average(gaps),
        "p99_itl": percentile99(gaps),
        "throughput": tokens / duration,
        "goodput": good / duration,
        "slo_attainment": Fraction(good, len(arrivals)),
    }
    return {key: float(value) for key, value in values.items()}


# --------------------------------------------------------------------------- building traces


def random_trace(rng: np.random.Generator, n: int, max_tokens: int, one_token_share: float = 0.2,
                 start: float = 0.0) -> Trace:  # fmt: skip
    """n requests arriving in no particular order; SLOs at least 1e-6 away from every latency."""
    arrivals = (start + rng.uniform(0.0, 5.0, size=n)).tolist()
    token_times = []
    for a in arrivals:
        count = 1 if rng.random() < one_token_share else int(rng.integers(2, max_tokens + 1))
        gaps = rng.exponential(0.04, size=count - 1) * (rng.random(size=count - 1) > 0.1)  # some gaps are 0
        first = a + rng.exponential(0.3)
        token_times.append((first + np.concatenate([[0.0], np.cumsum(gaps)])).tolist())
    ttft, tpot, _ = latencies((arrivals, token_times, 0.0, 0.0))
    slo_ttft, slo_tpot = float(np.median([float(f) for f in ttft])), 0.04
    while any(abs(f - Fraction(slo_ttft)) < Fraction(1, 10**6) for f in ttft):
        slo_ttft += 1e-5
    while any(p is not None and abs(p - Fraction(slo_tpot)) < Fraction(1, 10**6) for p in tpot):
        slo_tpot += 1e-5
    return arrivals, token_times, slo_ttft, slo_tpot


def grid(ticks: list[list[int]], arrivals: list[int], slo_ttft: int, slo_tpot: int) -> Trace:
    """A trace whose every time is a multiple of 1/64 s, given in ticks of 1/64 s."""
    return ([a / 64 for a in arrivals], [[t / 64 for t in ts] for ts in ticks], slo_ttft / 64, slo_tpot / 64)


# --------------------------------------------------------------------------- comparing answers


def compare(got: Any, want: dict[str, float], what: str) -> None:
    result = expect_dict(got, KEYS, what=f"the result ({what})", hint="form")
    for key in KEYS:
        expect_float(result[key], want[key], what=f'"{key}" ({what})', rtol=1e-9, atol=1e-12, hint="form")


def run(student: Student, cases: list[tuple[Trace, str]]) -> None:
    """All the traces in one crossing, each compared with its expected figures."""
    results = student.serving_metrics.each([trace for trace, _ in cases])
    for (trace, what), got in zip(cases, results, strict=True):
        compare(got, expected(trace), what)


# --------------------------------------------------------------------------- the checks

WORKED: Trace = ([0.0, 0.5, 1.0], [[0.2, 0.3, 0.4, 0.5], [1.0, 1.5], [1.1]], 0.3, 0.2)


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    compare(student.serving_metrics(*WORKED), expected(WORKED), "the worked example")


@check("A latency exactly at its SLO meets it (the statement's example)", public=True, hint="inclusive")
def slo_edge_example(student: Student) -> None:
    trace: Trace = ([0.0, 0.25], [[0.5, 0.75, 1.0], [0.5, 0.625]], 0.5, 0.25)
    compare(student.serving_metrics(*trace), expected(trace), "the statement's example at the edge")


@check("Random traces of many sizes")
def random_traces(student: Student, rng: np.random.Generator) -> None:
    sizes = [(1, 6), (2, 3), (3, 12), (5, 8), (8, 20), (13, 5), (21, 40), (34, 16), (55, 10), (89, 30)]
    cases = [(random_trace(rng, n, m), f"random trace {k} of {len(sizes)}, {n} requests")
             for k, (n, m) in enumerate(sizes, start=1)]  # fmt: skip
    run(student, cases)


@check("One-token requests have no TPOT, and empty statistics are 0.0", hint="one-token")
def one_token_requests(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (grid([[10, 12, 15], [20], [22, 30], [40]], [0, 5, 16, 38], 3, 4), "two of four requests with one token"),
        (grid([[8], [9], [30]], [2, 4, 25], 6, 1), "every request with one token"),
        (grid([[7]], [3], 5, 1), "a single one-token request"),
        (random_trace(rng, 30, 6, one_token_share=0.6), "a random trace with many one-token requests"),
    ]
    run(student, cases)


@check("SLOs met exactly at the edge, and missed just past it", hint="inclusive")
def slo_ties(student: Student) -> None:
    cases = [
        (grid([[16, 20, 24, 28], [40, 48], [70]], [0, 24, 54], 16, 4), "TTFTs and TPOTs exactly at the SLOs"),
        (grid([[17, 22, 27], [30, 35, 40, 45], [50]], [0, 13, 33], 17, 5), "every request exactly at both SLOs"),
        (grid([[16, 21], [20, 24, 28], [40]], [0, 3, 24], 16, 4), "some at the edge, some just past it"),
        (grid([[33, 37, 41], [35, 40]], [1, 3], 32, 4), "a TTFT at the edge, a TPOT just past it"),
    ]
    run(student, cases)


@check("The p99 interpolates between ranks", hint="percentile")
def percentiles(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (random_trace(rng, 2, 2, one_token_share=0.0), "two requests of two tokens"),
        (random_trace(rng, 150, 4), "150 requests"),
        (random_trace(rng, 120, 3), "120 requests"),
        (random_trace(rng, 7, 60, one_token_share=0.0), "a few long requests"),
    ]
    run(student, cases)


@check("mean_itl weights gaps, mean_tpot weights requests", hint="itl-vs-tpot")
def itl_weighting(student: Student) -> None:
    cases = [
        (grid([[4, 5, 6, 7, 8, 9, 10, 11, 12], [10, 30]], [0, 2], 8, 8), "a long fast request and a short slow one"),
        (grid([[1, 3, 5, 7], [2, 12, 22], [3, 4], [9]], [0, 1, 1, 8], 2, 3), "requests of mixed lengths"),
    ]
    run(student, cases)


@check("The duration runs from the first arrival to the last token", hint="rates")
def duration(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (grid([[130, 131, 132], [140, 150]], [0, 2], 200, 10), "a long wait before the first token"),
        (grid([[90, 95], [12, 20, 28], [60]], [80, 10, 40], 10, 5), "requests listed out of arrival order"),
        (random_trace(rng, 20, 10, start=1.7e9), "timestamps of a real clock"),
    ]
    run(student, cases)


@check("Times given as np.float64", hint="form")
def numpy_floats(student: Student, rng: np.random.Generator) -> None:
    arrivals, token_times, slo_ttft, slo_tpot = random_trace(rng, 12, 9)
    trace: Trace = (
        [np.float64(a) for a in arrivals],
        [[np.float64(t) for t in times] for times in token_times],
        np.float64(slo_ttft),
        np.float64(slo_tpot),
    )
    run(student, [(trace, "numpy floats")])


@check("arrivals and token_times are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    arrivals, token_times, slo_ttft, slo_tpot = random_trace(rng, 9, 7)
    # The same lists in both calls of one crossing: a call that changes them changes what the second one sees.
    first, second = student.serving_metrics.each(
        [(arrivals, token_times, slo_ttft, slo_tpot), (arrivals, token_times, slo_ttft * 2, slo_tpot)]
    )
    compare(first, expected((arrivals, token_times, slo_ttft, slo_tpot)), "first call")
    compare(second, expected((arrivals, token_times, slo_ttft * 2, slo_tpot)), "second call, on the same lists")
