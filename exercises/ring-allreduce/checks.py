"""Hidden checks for "The Ring All-Reduce".

The expected log is built from the ring's invariant rather than from the statement's formulas: at
the first step every rank sends its own chunk r, and at every later step (through both phases) it
forwards the chunk it has just received from rank r - 1. The expected sums are exactly rounded
(``math.fsum`` per position); the elements sent are added up from that log and the sizes of
``np.array_split``. A wrong answer is named by the grader, by comparing it with the exercise's
mutants on the same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_ints, expect_sequence, fail

# --------------------------------------------------------------------------- independent expected values


def expected_log(p: int) -> list[list[list[int]]]:
    """2(p - 1) steps of the ring: send what you hold, then hold what the rank behind you sent."""
    holding = list(range(p))
    log = []
    for _ in range(2 * (p - 1)):
        step = [[r, (r + 1) % p, holding[r]] for r in range(p)]
        log.append(step)
        holding = [step[(r - 1) % p][2] for r in range(p)]
    return log


def expected_sum(xs: list[np.ndarray]) -> np.ndarray:
    n = len(xs[0])
    return np.array([math.fsum(float(x[i]) for x in xs) for i in range(n)], dtype=np.float64)


def expected_sent(n: int, p: int) -> list[int]:
    sizes = [len(part) for part in np.array_split(np.arange(n), p)]
    sent = [0] * p
    for step in expected_log(p):
        for src, _, chunk in step:
            sent[src] += sizes[chunk]
    return sent


# --------------------------------------------------------------------------- comparing answers


def is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def log_as_lists(log: Any, p: int, what: str) -> list:
    """The log as lists of lists of [src, dst, chunk], once its form is right (tuples or lists of 3 ints)."""
    if type(log) is not list:
        fail(f"log ({what}) should be a list of steps, got {describe(log)}", hint="form")
    steps = []
    for t, step in enumerate(log):
        if type(step) is not list:
            fail(f"log[{t}] ({what}) should be a list of transfers, got {describe(step)}", hint="form")
        transfers = []
        for i, item in enumerate(step):
            if not isinstance(item, (tuple, list)) or len(item) != 3 or not all(is_int(v) for v in item):
                fail(f"log[{t}][{i}] ({what}) should be a tuple (src, dst, chunk) of three ints, got {describe(item)}",
                     hint="form")  # fmt: skip
            transfers.append([int(v) for v in item])
        steps.append(transfers)
    return steps


def expect_allreduce(result: Any, xs: list[np.ndarray], what: str) -> None:
    p = len(xs)
    outs, log = expect_sequence(result, 2, what=f"ring_allreduce's return value ({what})", hint="form")
    if type(outs) is not list:
        fail(f"outs ({what}) should be a list of {p} arrays, got {describe(outs)}", hint="form")
    if len(outs) != p:
        fail(f"outs ({what}) should hold {p} arrays, one per rank, got {len(outs)}", hint="form")
    want = expected_sum(xs)
    for r, out in enumerate(outs):
        if not isinstance(out, np.ndarray) or out.dtype != np.float64 or out.shape != want.shape:
            expect_array(out, want, what=f"outs[{r}] ({what})", dtype=np.float64, hint="form")
    for r, out in enumerate(outs):
        expect_array(out, want, what=f"outs[{r}] ({what})", rtol=1e-9, atol=1e-9)
    for r, out in enumerate(outs[1:], start=1):
        if not np.array_equal(out, outs[0]):
            fail(f"outs[{r}] ({what}) is not bitwise equal to outs[0]: every rank must end with the same bits",
                 hint="identical")  # fmt: skip
    expect_ints(log_as_lists(log, p, what), expected_log(p), what=f"{what}: log")


def check_allreduce(student: Student, cases: list[tuple[list[np.ndarray], str]]) -> None:
    results = student.ring_allreduce.each([(xs,) for xs, _ in cases])
    for (xs, what), result in zip(cases, results, strict=True):
        expect_allreduce(result, xs, what)


def check_sent(student: Student, cases: list[tuple[int, int, str]]) -> None:
    results = student.ring_elements_sent.each([(n, p) for n, p, _ in cases])
    for (n, p, what), got in zip(cases, results, strict=True):
        expect_ints(got, expected_sent(n, p), what=f"{what}: the elements sent")


def random_ranks(rng: np.random.Generator, p: int, n: int) -> list[np.ndarray]:
    scale = 10.0 ** rng.uniform(-2, 3)
    return [rng.normal(size=n) * scale for _ in range(p)]


# --------------------------------------------------------------------------- the checks

EXAMPLE = [np.array([1.0, 2.0, 3.0, 4.0]), np.array([10.0, 20.0, 30.0, 40.0]), np.array([100.0, 200.0, 300.0, 400.0])]


@check("The worked example from the statement: 3 ranks, 4 positions", public=True, points=2, hint="rs-order")
def worked_example(student: Student) -> None:
    check_allreduce(student, [(EXAMPLE, "the worked example")])


@check("The elements sent in the statement's examples", public=True, hint="elements")
def worked_elements(student: Student) -> None:
    check_sent(student, [(4, 3, "4 positions, 3 ranks"), (12, 4, "12 positions, 4 ranks")])


@check("ring_allreduce returns (outs, log): a list of float64 arrays and a list of lists of tuples", public=True,
       hint="form")  # fmt: skip
def return_forms(student: Student) -> None:
    xs = [np.array([1.5, -2.0, 0.25]), np.array([0.5, 4.0, 1.0])]
    check_allreduce(student, [(xs, "2 ranks, 3 positions")])


@check("Random arrays on 2 to 7 ranks, lengths not multiples of p", hint="rs-order")
def random_rings(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k, p in enumerate([2, 3, 4, 5, 6, 7, 3, 5, 4, 6]):
        n = int(rng.integers(p + 1, 4 * p))
        if n % p == 0:
            n += 1
        cases.append((random_ranks(rng, p, n), f"random case {k + 1} ({p} ranks, {n} positions)"))
    for p, n in [(4, 12), (5, 15)]:  # and two that divide evenly
        cases.append((random_ranks(rng, p, n), f"{p} ranks, {n} positions"))
    check_allreduce(student, cases)


@check("Fewer positions than ranks: empty chunks are still sent and logged", hint="empty")
def empty_chunks(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for p, n in [(3, 2), (4, 1), (5, 3), (6, 0), (8, 5), (2, 1), (7, 6)]:
        cases.append((random_ranks(rng, p, n), f"{p} ranks, {n} position{'' if n == 1 else 's'}"))
    check_allreduce(student, cases)


@check("A single rank: nothing is sent, the log is empty", hint="empty")
def single_rank(student: Student, rng: np.random.Generator) -> None:
    cases = [([rng.normal(size=n)], f"1 rank, {n} positions") for n in (5, 1, 0)]
    check_allreduce(student, cases)


@check("Elements sent, for many sizes and numbers of ranks", hint="elements")
def elements_sent(student: Student, rng: np.random.Generator) -> None:
    pairs = []
    for p in range(1, 10):
        pairs += [(n, p) for n in sorted({0, 1, p - 1, p, p + 1, 2 * p + 1, int(rng.integers(0, 60))})]
    pairs += [(100_003, 7), (65_536, 8), (1_000, 64), (10, 64)]

    def kind(n: int, p: int) -> str:
        if p == 1:
            return "a single rank"
        return "fewer positions than ranks" if n < p else "p divides n" if n % p == 0 else "p does not divide n"

    count = len(pairs)
    check_sent(student, [(n, p, f"case {k + 1} of {count} ({kind(n, p)})") for k, (n, p) in enumerate(pairs)])


@check("The arrays passed in are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    xs = random_ranks(rng, 4, 9)
    # The same list of arrays for two calls in one crossing: a call that adds into them changes the second answer.
    check_allreduce(student, [(xs, "call 1 of 2 with the same arrays"), (xs, "call 2 of 2 with the same arrays")])
