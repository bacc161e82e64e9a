"""Hidden checks for "Cross-Entropy with Padding and Label Smoothing".

Expected values are computed row by row in a different form from a log-softmax table: with
lse = logsumexp(z) (numpy's logaddexp.reduce), the smoothed row loss is
lse − (1 − ε)·z_t − ε·mean(z), and the gradient row is exp(z − lse) − y, divided by the number of
counted rows. A wrong answer is named by the grader, by comparing it with the exercise's mutants
on the same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_float, expect_sequence, fail

Case = tuple[np.ndarray, np.ndarray, int, float]


# --------------------------------------------------------------------------- independent reference


def expected(logits: np.ndarray, targets: np.ndarray, ignore_index: int, eps: float) -> tuple[float, np.ndarray]:
    N, V = logits.shape
    counted = [i for i in range(N) if int(targets[i]) != ignore_index]
    grad = np.zeros((N, V))
    if not counted:
        return 0.0, grad
    total = 0.0
    for i in counted:
        z, t = logits[i], int(targets[i])
        lse = float(np.logaddexp.reduce(z))
        total += lse - (1.0 - eps) * float(z[t]) - eps * float(np.mean(z))
        target = np.full(V, eps / V)
        target[t] += 1.0 - eps
        grad[i] = np.exp(z - lse) - target
    M = len(counted)
    return total / M, grad / M


def tolerance(want: Any) -> dict[str, float]:
    """rtol 1e-9, and atol 1e-9 times the largest expected magnitude (at least 1)."""
    return {"rtol": 1e-9, "atol": 1e-9 * max(1.0, float(np.max(np.abs(want))) if np.size(want) else 1.0)}


def expect_result(got: Any, case: Case, what: str) -> None:
    logits, targets, ignore_index, eps = case
    want_loss, want_grad = expected(logits, targets, ignore_index, eps)
    loss, grad = expect_sequence(got, 2, what=f"the return value ({what})", hint="form")
    N, V = logits.shape
    if not isinstance(grad, np.ndarray) or grad.shape != (N, V) or grad.dtype != np.float64:
        fail(f"dlogits ({what}) should be a float64 array of shape ({N}, {V}), like logits, got {describe(grad)}",
             hint="form")  # fmt: skip
    expect_float(loss, want_loss, what=f"the loss ({what})", hint="form", **tolerance(want_loss))
    expect_array(grad, want_grad, what=f"dlogits ({what})", hint="form", **tolerance(want_grad))
    ignored = targets == ignore_index
    if ignored.any() and not np.array_equal(grad[ignored], np.zeros((int(ignored.sum()), V))):
        fail(f"dlogits ({what}) is not exactly 0.0 on every ignored row", hint="ignored")


def compare(student: Student, cases: list[tuple[Case, str]]) -> None:
    results = student.cross_entropy.each([case for case, _ in cases])
    for n, ((case, label), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_result(got, case, f"batch {n} of {len(cases)}: {label}")


def random_case(rng: np.random.Generator, N: int, V: int, scale: float, eps: float,
                ignore_index: int = -100, n_ignored: int = 0) -> Case:  # fmt: skip
    logits = rng.normal(size=(N, V)) * scale
    targets = rng.integers(0, V, size=N)
    if n_ignored:
        targets[rng.choice(N, size=n_ignored, replace=False)] = ignore_index
    return logits, targets.astype(np.int64), ignore_index, eps


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    cases: list[tuple[Case, str]] = [
        ((np.array([[0.0, 0.0]]), np.array([0]), -100, 0.0), "two equal logits"),
        ((np.array([[0.0, 0.0]]), np.array([0]), -100, 0.2), "two equal logits, ε = 0.2"),
        ((np.array([[1e4, 0.0]]), np.array([1]), -100, 0.0), "a target far below the other logit"),
        ((np.array([[0.0, math.log(3.0)], [5.0, -5.0]]), np.array([1, -100]), -100, 0.0), "one row ignored"),
    ]
    results = student.cross_entropy.each([case for case, _ in cases])
    for (case, label), got in zip(cases, results, strict=True):
        expect_result(got, case, label)


@check("Returns (loss, dlogits): a float and a float64 array shaped like logits", hint="form")
def output_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    logits, targets, ignore_index, eps = random_case(rng, 4, 3, 1.0, 0.0)
    got = student.cross_entropy(logits, targets, ignore_index, eps)
    loss, grad = expect_sequence(got, 2, what="the return value", hint="form")
    if not isinstance(loss, (float, np.floating)):
        fail(f"loss should be a float, got {describe(loss)}", hint="form")
    if not isinstance(grad, np.ndarray) or grad.shape != (4, 3) or grad.dtype != np.float64:
        fail(f"dlogits should be a float64 array of shape (4, 3), like logits, got {describe(grad)}", hint="form")


@check("Random batches, every row counted, no smoothing", hint="log-softmax")
def random_batches(student: Student) -> None:
    rng = np.random.default_rng(2)
    shapes = ((1, 2), (3, 5), (8, 4), (16, 10), (5, 100), (64, 7))
    compare(student, [(random_case(rng, N, V, 3.0, 0.0), f"{N} rows of {V} classes") for N, V in shapes])


@check("Label smoothing spreads ε/V over every class", hint="smoothing")
def label_smoothing(student: Student) -> None:
    rng = np.random.default_rng(3)
    cases = [(random_case(rng, N, V, 2.0, eps), f"{N} rows of {V} classes, smoothing {n} of 5")
             for n, (N, V, eps) in enumerate(((4, 2, 0.2), (6, 5, 0.1), (3, 10, 0.5), (10, 3, 0.05), (5, 50, 0.9)),
                                             start=1)]  # fmt: skip
    compare(student, cases)


@check("Ignored rows: averaged over the counted rows only, their gradient exactly 0", hint="ignored")
def ignored_rows(student: Student) -> None:
    rng = np.random.default_rng(4)
    cases = [
        (random_case(rng, 6, 4, 2.0, 0.0, -100, 2), "2 of 6 rows ignored"),
        (random_case(rng, 10, 120, 2.0, 0.1, -100, 7), "7 of 10 rows ignored, smoothing, 120 classes"),
        (random_case(rng, 5, 3, 2.0, 0.3, -1, 1), "1 of 5 rows ignored, smoothing"),
        (random_case(rng, 8, 6, 2.0, 0.0, -100, 7), "one counted row of 8"),
    ]
    compare(student, cases)


@check("The pad id may be a real class id: its rows are ignored too", hint="ignore-class")
def ignore_real_class(student: Student) -> None:
    rng = np.random.default_rng(5)
    cases = []
    for n, (N, V, ignore_index, eps) in enumerate(((6, 4, 0, 0.0), (9, 5, 3, 0.2), (7, 2, 1, 0.0)), start=1):
        logits, targets, _, _ = random_case(rng, N, V, 2.0, eps)
        targets[: N // 2] = ignore_index  # a few rows padded
        targets[N // 2 :] = (ignore_index + 1 + np.arange(N - N // 2)) % V  # the others a different class
        targets[-1] = ignore_index  # padded at the end too
        cases.append(((logits, targets, ignore_index, eps), f"pad id a class id, case {n} of 3"))
    compare(student, cases)


@check("Every row ignored: loss 0.0 and a zero gradient, never nan", hint="no-rows")
def all_ignored(student: Student) -> None:
    rng = np.random.default_rng(6)
    cases = [
        (random_case(rng, 3, 4, 2.0, 0.0, -100, 3), "3 rows, all ignored"),
        (random_case(rng, 1, 2, 2.0, 0.1, -100, 1), "a single ignored row, smoothing"),
        (random_case(rng, 4, 3, 2.0, 0.0, 2, 4), "4 rows, all padded with a class id"),
    ]
    compare(student, cases)


@check("Logits up to ±1e4 with spreads of 1e4: no overflow, no log(0)", hint="stable")
def large_logits(student: Student) -> None:
    rng = np.random.default_rng(7)
    cases = []
    # Rows at very different levels, a target far below its row's maximum, smoothing over classes
    # whose probability underflows to 0.
    logits = np.array([[1e4, 0.0, 5e3], [-1e4, -2e4 + 1.0, -1e4 + 3.0], [800.0, 790.0, -500.0], [0.5, 0.0, -0.5]])
    cases.append(((logits, np.array([2, 1, 1, 0]), -100, 0.0), "rows at levels far apart"))
    cases.append(((logits, np.array([0, -100, 2, 1]), -100, 0.1), "rows at levels far apart, smoothing"))
    wide = rng.uniform(-1e4, 1e4, size=(6, 9))
    cases.append(((wide, rng.integers(0, 9, size=6), -100, 0.0), "logits spread over ±1e4"))
    cases.append(((wide, rng.integers(0, 9, size=6), -100, 0.25), "logits spread over ±1e4, smoothing"))
    near = rng.normal(size=(5, 4)) + 700.0
    cases.append(((near, rng.integers(0, 4, size=5), -100, 0.0), "logits near 700"))
    compare(student, cases)


@check("The arrays passed in are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    rng = np.random.default_rng(8)
    case = random_case(rng, 7, 5, 2.0, 0.1, -100, 3)
    # The same arrays for two calls in one crossing: a call that changes them changes what the
    # second one sees.
    first, second = student.cross_entropy.each([case, case])
    expect_result(first, case, "the first of two calls on the same arrays")
    expect_result(second, case, "the second of two calls on the same arrays")
