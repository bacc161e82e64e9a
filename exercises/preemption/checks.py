"""Hidden checks for "Preemption When KV Memory Runs Out".

Expected answers come from a second simulator written here, organised differently from a scheduler
that keeps a running list and a free-block counter: every request has a state ("out", "run",
"done") and an admission stamp; the running order is the order of the stamps, the victim is the
running request with the largest stamp, the waiting queue is rebuilt and sorted by
(arrival, index) at every step, and the free blocks are recomputed from the token counts
(⌈(p + g − 1) / block_size⌉ per running request) whenever they are needed. The statement's
examples were also worked out by hand. A wrong answer is named by the grader, by comparing it
with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, fail, values_shown

Case = tuple[list[int], list[int], list[int], int, int]

# --------------------------------------------------------------------------- independent simulator


def expected_preempt(arrivals, prompts, outs, num_blocks, block_size) -> tuple[list[int], list[int]]:
    n = len(arrivals)
    gen = [0] * n
    state = ["out"] * n  # "out": not running (not arrived, new or preempted); "run"; "done"
    stamp = [0] * n  # when it was last admitted: the running list is in stamp order
    finish: list[int] = [-1] * n
    preempted = [0] * n
    counter = 0

    def pages(tokens: int) -> int:
        whole, rest = divmod(tokens, block_size)
        return whole + (1 if rest else 0)

    def free() -> int:
        return num_blocks - sum(pages(prompts[i] + gen[i] - 1) for i in range(n) if state[i] == "run")

    t = 0
    while "out" in state or "run" in state:
        for r in sorted((i for i in range(n) if state[i] == "run"), key=lambda i: stamp[i]):
            if state[r] != "run":
                continue  # preempted earlier in this step
            grows = pages(prompts[r] + gen[r]) > pages(prompts[r] + gen[r] - 1)
            if grows and free() == 0:
                victim = max((i for i in range(n) if state[i] == "run"), key=lambda i: stamp[i])
                state[victim] = "out"
                preempted[victim] += 1
                if victim == r:
                    break
            gen[r] += 1
        queue = sorted((i for i in range(n) if state[i] == "out" and arrivals[i] <= t), key=lambda i: (arrivals[i], i))
        for h in queue:
            if pages(prompts[h] + gen[h]) > free():
                break
            state[h] = "run"
            counter += 1
            stamp[h] = counter
            gen[h] += 1
        for i in range(n):
            if state[i] == "run" and gen[i] == outs[i]:
                state[i] = "done"
                finish[i] = t
        t += 1
    return finish, preempted


def random_case(rng: np.random.Generator, exact: bool = False) -> Case:
    """Up to 8 requests, arrivals in 0 … 5 in any order, blocks of 1 to 4 tokens, memory that is tight.

    Every request fits alone: with ``exact`` the largest one needs every block at its last token,
    otherwise there is room for one more token.
    """
    n = int(rng.integers(1, 9))
    block_size = int(rng.integers(1, 5))
    arrivals = [int(a) for a in rng.integers(0, 6, size=n)]
    prompts = [int(x) for x in rng.integers(1, 13, size=n)]
    outs = [int(x) for x in rng.integers(1, 11, size=n)]
    extra = 1 if not exact else 0
    need = max(-(-(p + o - 1 + extra) // block_size) for p, o in zip(prompts, outs, strict=True))
    return arrivals, prompts, outs, need + int(rng.integers(0, 5)), block_size


# --------------------------------------------------------------------------- comparing answers


def is_int(x: Any) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def expect_result(got: Any, want: tuple[list[int], list[int]], what: str) -> None:
    """A tuple of two lists of n ints, each compared exactly."""
    n = len(want[0])
    if not isinstance(got, tuple) or len(got) != 2:
        fail(
            f"the return value ({what}) should be a tuple (finish_steps, preemptions), got {describe(got)}", hint="form"
        )
    for name, part in zip(("finish_steps", "preemptions"), got, strict=True):
        if not isinstance(part, list):
            fail(f"{name} ({what}) should be a list, got {describe(part)}", hint="form")
        if len(part) != n:
            fail(f"{name} ({what}) should have one int per request ({n}), got {len(part)} items", hint="form")
        if not all(is_int(x) for x in part):
            fail(f"{name} ({what}) should hold only ints, got {describe(next(x for x in part if not is_int(x)))}",
                 hint="form")  # fmt: skip
    for name, part, right in zip(("finish_steps", "preemptions"), got, want, strict=True):
        wrong = [i for i in range(n) if int(part[i]) != right[i]]
        if wrong:
            i = wrong[0]
            if values_shown():
                detail = f"request {i}: expected {right[i]}, got {int(part[i])}"
            elif name == "finish_steps":
                detail = (
                    f"request {i}, which finishes {'later' if int(part[i]) > right[i] else 'earlier'} than expected"
                )
            else:
                detail = f"request {i}, preempted {'more' if int(part[i]) > right[i] else 'fewer'} times than expected"
            fail(f"{name} ({what}) differs at {len(wrong)} of {n} requests; first at {detail}",
                 hint=None, expected=want, got=got)  # fmt: skip


def run_cases(student: Student, cases: list[Case], label: str) -> None:
    """Every case in one crossing, each compared with the independent simulator."""
    results = student.simulate_preempt.each([(list(a), list(p), list(o), nb, bs) for a, p, o, nb, bs in cases])
    for k, (case, got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_result(got, expected_preempt(*case), f"{label} {k} of {len(cases)}")


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2, hint="rules")
def worked_example(student: Student) -> None:
    cases = [
        (([0, 0], [3, 2], [4, 4], 4, 2), ([3, 5], [0, 1]), "the first example"),
        (([0, 0], [3, 2], [3, 3], 3, 2), ([2, 4], [0, 1]), "the self-preemption example"),
        (([0, 0, 0], [4, 9, 1], [1, 1, 1], 3, 4), ([0, 1, 2], [0, 0, 0]), "the head-of-line example"),
    ]
    results = student.simulate_preempt.each([args for args, _, _ in cases])
    for (_, want, what), got in zip(cases, results, strict=True):
        expect_result(got, want, what)


@check("The result is a tuple of two lists of ints, one per request", public=True, hint="form")
def result_form(student: Student) -> None:
    case = ([1, 0, 0], [2, 5, 3], [2, 1, 3], 8, 4)
    expect_result(student.simulate_preempt(*case), expected_preempt(*case), "three requests, no preemption")


@check("With memory to spare, nobody is preempted (arrivals in any order, idle steps)", hint="timing")
def no_pressure(student: Student) -> None:
    cases: list[Case] = [
        ([0], [1], [1], 1, 1),
        ([4], [5], [3], 2, 4),
        ([3, 0, 7, 3], [6, 2, 9, 1], [4, 8, 1, 5], 40, 2),
        ([20, 2, 2, 0], [3, 3, 3, 3], [2, 1, 6, 3], 12, 3),
        ([1, 1, 1, 1, 1], [4, 4, 4, 4, 4], [4, 4, 4, 4, 4], 5, 8),
    ]
    run_cases(student, cases, "case")


@check("The newest admitted request is the one preempted", hint="victim")
def newest_is_preempted(student: Student) -> None:
    cases: list[Case] = [
        ([0, 0], [1, 2], [6, 5], 3, 3),
        ([0, 0], [1, 4], [4, 3], 4, 2),
        ([0, 0, 0], [3, 3, 3], [6, 6, 6], 6, 2),
        ([1, 0, 0, 1], [2, 2, 2, 2], [5, 5, 5, 5], 5, 2),
    ]
    run_cases(student, cases, "case")


@check("A request that is itself the newest preempts itself, and the decodes stop", hint="self")
def self_preemption(student: Student) -> None:
    cases: list[Case] = [
        ([0, 0], [1, 4], [7, 6], 7, 2),
        ([0, 0], [1, 5], [8, 4], 5, 2),
        ([0, 0, 0], [2, 2, 2], [4, 4, 4], 5, 2),
    ]
    run_cases(student, cases, "case")


@check("A preempted request keeps its output and recomputes it", hint="recompute")
def output_kept(student: Student) -> None:
    cases: list[Case] = [
        ([0, 0], [3, 5], [5, 2], 4, 2),
        ([0, 0], [5, 4], [3, 4], 3, 3),
        ([2, 2, 3], [7, 3, 2], [7, 3, 8], 8, 2),
    ]
    run_cases(student, cases, "case")


@check("A finishing request's blocks are free only from the next step", hint="end-of-step")
def freed_at_end_of_step(student: Student) -> None:
    cases: list[Case] = [
        ([0, 0], [1, 2], [6, 5], 3, 3),
        ([0, 0], [3, 5], [5, 2], 4, 2),
        ([0, 0, 0], [1, 2, 1], [3, 6, 7], 5, 2),
        ([0, 0, 1], [2, 2, 2], [2, 2, 2], 2, 2),
    ]
    run_cases(student, cases, "case")


@check("A preempted request waits at the front of the queue, in (arrival, index) order", hint="queue")
def preempted_at_front(student: Student) -> None:
    cases: list[Case] = [
        ([0, 0, 0], [1, 9, 3], [4, 4, 3], 7, 2),
        ([0, 0, 0], [2, 6, 2], [5, 3, 6], 3, 3),
        ([3, 2, 3, 3], [2, 4, 3, 3], [2, 6, 7, 8], 6, 2),
        ([0, 0, 0], [1, 2, 1], [3, 6, 7], 5, 2),
    ]
    run_cases(student, cases, "case")


@check("Admission stops at the first waiting request that does not fit", hint="no-skip")
def head_of_line(student: Student) -> None:
    cases: list[Case] = [
        ([0, 0, 0], [5, 9, 2], [6, 3, 2], 3, 4),
        ([0, 2, 2], [5, 9, 6], [6, 3, 4], 7, 2),
        ([0, 0, 0, 0], [2, 7, 1, 1], [1, 1, 1, 1], 4, 2),
        ([0, 0], [1, 2], [5, 8], 5, 4),
    ]
    run_cases(student, cases, "case")


@check("Blocks are counted for the p + g tokens of the next step, at a block's edge", hint="blocks")
def block_edges(student: Student) -> None:
    cases: list[Case] = [
        ([0, 0], [1, 3], [2, 2], 7, 1),
        ([0, 0], [1, 2], [5, 3], 2, 4),
        ([0, 0], [2, 2], [3, 3], 3, 2),
        ([0, 0, 0], [4, 4, 4], [5, 5, 5], 6, 4),
        ([0, 0, 0], [3, 1, 2], [4, 6, 5], 9, 1),
    ]
    run_cases(student, cases, "case")


@check("Decodes run before admissions, and a new request is admitted in its arrival step", hint="phases")
def phase_order(student: Student) -> None:
    cases: list[Case] = [
        ([0, 1], [2, 4], [3, 2], 3, 2),
        ([0, 1], [4, 1], [2, 4], 3, 2),
        ([0, 1], [4, 6], [2, 5], 3, 4),
        ([5, 1, 3], [1, 2, 3], [2, 2, 2], 9, 2),
    ]
    run_cases(student, cases, "case")


@check("A request can be preempted more than once", hint="rules")
def repeated_preemptions(student: Student) -> None:
    cases: list[Case] = [
        ([0, 0, 0], [1, 2, 1], [3, 6, 7], 5, 2),
        ([0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [9, 9, 9, 9, 9], 6, 2),
        ([0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1], [12, 11, 10, 9, 8, 7], 12, 1),
    ]
    run_cases(student, cases, "case")


@check("Random workloads under tight memory", points=2, hint="rules")
def random_workloads(student: Student, rng: np.random.Generator) -> None:
    run_cases(student, [random_case(rng) for _ in range(300)], "random workload")


@check("Numpy integers are accepted as ints", hint="rules")
def numpy_integers(student: Student) -> None:
    case = ([0, 0, 1], [3, 2, 4], [4, 4, 2], 5, 2)
    a, p, o, nb, bs = case
    got = student.simulate_preempt([np.int64(x) for x in a], [np.int32(x) for x in p], [np.int64(x) for x in o],
                                   np.int64(nb), np.int64(bs))  # fmt: skip
    expect_result(got, expected_preempt(*case), "a workload given as numpy integers")


@check("The arguments are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    for k, (a, p, o, nb, bs) in enumerate(
        [([2, 0, 1], [3, 8, 3], [4, 3, 1], 5, 3), ([1, 2, 3], [3, 5, 8], [2, 2, 5], 6, 3)]
    ):
        a, p, o = list(a), list(p), list(o)
        want = expected_preempt(a, p, o, nb, bs)
        # The same lists for both calls, in one crossing: a first call that changes them changes the second's answer.
        first, second = student.simulate_preempt.each([(a, p, o, nb, bs), (a, p, o, nb, bs)])
        expect_result(first, want, f"workload {k + 1} of 2, first call")
        expect_result(second, want, f"workload {k + 1} of 2, second call with the same lists")


@check("Memory so tight that the largest request needs every block at its last token", hint="blocks")
def exact_fit(student: Student, rng: np.random.Generator) -> None:
    cases: list[Case] = [([0], [3], [4], 3, 2), ([0, 0], [4, 1], [1, 8], 4, 2)]
    run_cases(student, cases + [random_case(rng, exact=True) for _ in range(150)], "workload")
