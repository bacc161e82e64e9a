"""Hidden checks for "The Knowledge-Distillation Loss".

Expected values are computed here by another route than a solution's: log-softmax with
np.logaddexp.reduce, and each row's KL divergence as the cross-entropy minus the teacher's
entropy. A wrong answer is named by the grader, by comparing it with the exercise's mutants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_float, fail

Case = tuple[np.ndarray, np.ndarray, float]


# --------------------------------------------------------------------------- independent reference


def log_softmax_rows(z: np.ndarray) -> np.ndarray:
    return z - np.logaddexp.reduce(z, axis=1, keepdims=True)


def expected_loss(student_logits: np.ndarray, teacher_logits: np.ndarray, T: float) -> float:
    """T² · mean_i [CE(p_i, q_i) − H(p_i)], with the log-probabilities from log-sum-exp."""
    log_p = log_softmax_rows(teacher_logits / T)
    log_q = log_softmax_rows(student_logits / T)
    p = np.exp(log_p)
    cross_entropy = -(p * log_q).sum(axis=1)
    entropy = -(p * log_p).sum(axis=1)
    return float(T * T * np.mean(cross_entropy - entropy))


def random_case(rng: np.random.Generator, n: int, C: int, T: float, spread: float = 3.0) -> Case:
    teacher = rng.normal(size=(n, C)) * spread
    student = teacher * 0.5 + rng.normal(size=(n, C)) * spread
    return student, teacher, T


def label(case: Case) -> str:
    """The case's shape and how its temperature compares with 1: never the temperature itself."""
    student, _, T = case
    softening = "below 1" if T < 1 else "above 1" if T > 1 else "of 1"
    return f"a ({student.shape[0]}, {student.shape[1]}) batch, a temperature {softening}"


# --------------------------------------------------------------------------- comparing


def expect_loss(got: Any, want: float, *, what: str) -> None:
    """One float (Python or numpy, not an array), close to ``want``."""
    if isinstance(got, bool) or not isinstance(got, (float, np.floating)):
        fail(f"{what} should be a float, got {describe(got)}", hint="scalar", expected=want, got=got)
    expect_float(got, want, what=what, rtol=1e-7, atol=1e-10, hint="scalar")


def check_cases(student: Student, cases: list[Case], where: str) -> None:
    """Every case in one crossing; each named by its number and shape, not its inputs."""
    results = student.distillation_loss.each(cases)
    for n, (case, got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_loss(got, expected_loss(*case), what=f"the loss ({where} {n} of {len(cases)}: {label(case)})")


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    teacher = np.array([[4.0, 2.0, 0.0], [1.0, 0.0, 1.0]])
    student_logits = np.array([[2.0, 2.0, 0.0], [1.0, 0.0, 1.0]])
    got = student.distillation_loss(student_logits, teacher, 2.0)
    expect_loss(got, expected_loss(student_logits, teacher, 2.0), what="the loss of the worked example (T = 2)")


@check("The loss is one float", hint="scalar")
def returns_a_float(student: Student) -> None:
    rng = np.random.default_rng(1)
    got = student.distillation_loss(*random_case(rng, 4, 3, 2.0))
    if isinstance(got, bool) or not isinstance(got, (float, np.floating)):
        fail(f"distillation_loss should return one float (the mean over the 4 rows), got {describe(got)}")


@check("Random batches: rows ≠ classes, many temperatures")
def random_batches(student: Student) -> None:
    rng = np.random.default_rng(2)
    shapes = [
        (4, 3, 2.0),
        (1, 10, 3.0),
        (8, 5, 0.5),
        (3, 7, 1.0),
        (16, 4, 4.5),
        (5, 2, 1.5),
        (6, 6, 2.5),
        (2, 50, 10.0),
    ]
    check_cases(student, [random_case(rng, n, C, T) for n, C, T in shapes], "random batch")


@check("One batch at many temperatures")
def many_temperatures(student: Student) -> None:
    rng = np.random.default_rng(3)
    student_logits, teacher, _ = random_case(rng, 5, 8, 1.0, spread=4.0)
    check_cases(student, [(student_logits, teacher, T) for T in (0.25, 0.8, 1.0, 3.0, 7.0, 20.0)], "temperature")


@check("Zero loss when the student agrees with the teacher; rows of zeros")
def agreement_and_zeros(student: Student) -> None:
    rng = np.random.default_rng(4)
    teacher = rng.normal(size=(5, 6)) * 3
    shifts = rng.normal(size=(5, 1)) * 10
    cases = [
        (teacher, teacher, 2.0),  # the same logits
        (teacher + shifts, teacher, 3.0),  # each row shifted by a constant: the same softmax
        (np.zeros((3, 4)), np.zeros((3, 4)), 2.0),  # both uniform
        (rng.normal(size=(4, 1)), rng.normal(size=(4, 1)), 2.0),  # one class: both distributions are [1]
        (rng.normal(size=(4, 5)) * 2, np.zeros((4, 5)), 1.5),  # a uniform teacher
        (np.zeros((4, 5)), rng.normal(size=(4, 5)) * 2, 2.5),  # a uniform student
    ]
    labels = ["same logits", "rows shifted", "all zeros", "one class", "teacher all zeros", "student all zeros"]
    for case, what, got in zip(cases, labels, student.distillation_loss.each(cases), strict=True):
        expect_loss(got, expected_loss(*case), what=f"the loss ({what}, {label(case)})")


@check("Large logits: exp() of them overflows", hint="stable")
def large_logits(student: Student) -> None:
    rng = np.random.default_rng(5)
    cases = []
    for n, C, T in ((3, 4, 1.0), (4, 6, 2.0), (2, 3, 0.5)):
        teacher = 1000.0 * T + rng.normal(size=(n, C)) * 2  # around 1000 after dividing by T
        student_logits = 1200.0 * T + rng.normal(size=(n, C)) * 2
        cases.append((student_logits, teacher, T))
    check_cases(student, cases, "logits in the thousands, case")


@check("Probabilities far too small for float64", hint="log-softmax")
def tiny_probabilities(student: Student) -> None:
    rng = np.random.default_rng(6)
    cases = []
    for n, C, T, scale in ((3, 5, 1.0, 2000.0), (4, 3, 2.0, 5000.0), (2, 6, 3.0, 10000.0)):
        teacher = rng.normal(size=(n, C)) * scale  # spreads of thousands: e^-1000 rounds to 0
        student_logits = rng.normal(size=(n, C)) * scale
        cases.append((student_logits, teacher, T))
    # Largest logit 0 in every row: nothing overflows, yet most probabilities round to 0.
    for n, C, T in ((3, 4, 1.0), (2, 5, 2.5)):
        teacher, student_logits = (-np.abs(rng.normal(size=(n, C))) * 4000 for _ in range(2))
        teacher[:, 0] = student_logits[:, -1] = 0.0
        cases.append((student_logits, teacher, T))
    # Rows of very different sizes in one batch: each row needs its own maximum.
    mixed_teacher = np.vstack([rng.normal(size=(1, 4)) * 3000, rng.normal(size=(1, 4)) * 0.5, [[0.0, 0, 0, 0]]])
    mixed_student = np.vstack([rng.normal(size=(1, 4)) * 0.5, rng.normal(size=(1, 4)) * 3000, [[1.0, 2, 3, 4]]])
    cases.append((mixed_student, mixed_teacher, 2.0))
    check_cases(student, cases, "huge spreads, case")


@check("The logits are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    rng = np.random.default_rng(7)
    case = random_case(rng, 4, 5, 3.0)
    # The same arrays in two calls of one crossing: a first call that changes them changes what the
    # second one sees. Only the answers are evidence.
    first, second = student.distillation_loss.each([case, case])
    floats = all(isinstance(v, (float, np.floating)) and not isinstance(v, bool) for v in (first, second))
    if floats and not np.isclose(float(first), float(second), rtol=1e-12, atol=0, equal_nan=True):
        fail("two calls with the same logits and temperature gave different losses: the first call changed the "
             "logits it was given")  # fmt: skip
    want = expected_loss(*case)
    expect_loss(first, want, what="the loss, first of two calls with the same logits")
    expect_loss(second, want, what="the loss, second of two calls with the same logits")
