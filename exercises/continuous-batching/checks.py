"""Checks for "Static and Continuous Batching".

The expected steps are computed here by other routes than a solution's: static batching by a
step-by-step simulation that scans every request at every step, and continuous batching request by
request (each starts at the first step, no earlier than its arrival and its predecessor's start,
where fewer than max_batch earlier requests are still running). A wrong answer is named by the
grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_integer, expect_sequence, fail

Case = tuple[list[Any], list[Any], int]

# --------------------------------------------------------------------------- independent reference


def expected_static(arrivals: list[Any], out_lens: list[Any], max_batch: int) -> tuple[list[int], list[int]]:
    n = len(arrivals)
    first: list[int | None] = [None] * n
    finish: list[int | None] = [None] * n
    busy_until, t = -1, 0
    while any(f is None for f in first):
        if t > busy_until:
            waiting = sorted((int(arrivals[i]), i) for i in range(n) if first[i] is None and arrivals[i] <= t)
            batch = [i for _, i in waiting[:max_batch]]
            if batch:
                busy_until = t + max(int(out_lens[i]) for i in batch) - 1
                for i in batch:
                    first[i], finish[i] = t, busy_until
        t += 1
    return [int(f) for f in first], [int(f) for f in finish]  # type: ignore[arg-type]


def expected_continuous(arrivals: list[Any], out_lens: list[Any], max_batch: int) -> tuple[list[int], list[int]]:
    n = len(arrivals)
    first, finish = [0] * n, [0] * n
    done: list[int] = []
    earliest = 0
    for i in sorted(range(n), key=lambda j: (int(arrivals[j]), j)):
        s = max(earliest, int(arrivals[i]))
        while sum(1 for j in done if first[j] <= s <= finish[j]) >= max_batch:
            s += 1
        first[i], finish[i] = s, s + int(out_lens[i]) - 1
        done.append(i)
        earliest = s
    return first, finish


# --------------------------------------------------------------------------- comparing answers


def compare(got: Any, want: tuple[list[int], list[int]], what: str) -> None:
    parts = expect_sequence(got, 2, what=f"the result ({what})", hint="form")
    for name, part, values in zip(("first_token_steps", "finish_steps"), parts, want, strict=True):
        steps = expect_sequence(part, len(values), what=f"{name} ({what})", hint="form")
        for i, (step, value) in enumerate(zip(steps, values, strict=True)):
            expect_integer(step, value, what=f"{name}[{i}] ({what})", hint="form")


def run(student: Student, cases: list[tuple[Case, str]], policies: tuple[str, ...] = ("static", "continuous")) -> None:
    """Every case through each policy, one crossing per policy."""
    for policy in policies:
        fn = student.static_batching if policy == "static" else student.continuous_batching
        want = expected_static if policy == "static" else expected_continuous
        for (case, what), got in zip(cases, fn.each([case for case, _ in cases]), strict=True):
            compare(got, want(*case), f"{policy}, {what}")


def random_case(rng: np.random.Generator, n: int, spread: int, longest: int, slots: int) -> Case:
    arrivals = [int(a) for a in rng.integers(0, spread + 1, size=n)]
    out_lens = [int(o) for o in rng.integers(1, longest + 1, size=n)]
    return arrivals, out_lens, slots


def form_check(student: Student, fn_name: str, case: Case) -> Any:
    got = getattr(student, fn_name)(*case)
    if not isinstance(got, tuple):
        fail(f"{fn_name} should return a tuple (first_token_steps, finish_steps), got {describe(got)}", hint="form")
    for name, part in zip(("first_token_steps", "finish_steps"), got, strict=False):
        if not isinstance(part, list):
            fail(f"{name} should be a list of ints, got {describe(part)}", hint="form")
    return got


# --------------------------------------------------------------------------- the checks

WORKED: Case = ([0, 0, 1, 2], [3, 1, 2, 2], 2)
IDLE: Case = ([3, 3, 3], [2, 2, 1], 1)


@check("static_batching on the worked example", public=True, hint="form")
def worked_example_static(student: Student) -> None:
    compare(form_check(student, "static_batching", WORKED), ([0, 0, 3, 3], [2, 2, 4, 4]), "the worked example")


@check("continuous_batching on the worked examples", public=True, hint="form")
def worked_example_continuous(student: Student) -> None:
    got = form_check(student, "continuous_batching", WORKED)
    compare(got, ([0, 0, 1, 3], [2, 0, 2, 4]), "the worked example")
    compare(student.continuous_batching(*IDLE), ([3, 5, 7], [4, 6, 7]), "the example with idle steps")


@check("A slot is free from the step after its request's last token", hint="slot-free")
def slot_reuse(student: Student) -> None:
    cases = [
        (([0, 0, 0], [1, 1, 1], 1), "one-token requests, one slot"),
        (([0, 0, 1, 1], [2, 3, 1, 2], 2), "requests arriving as others finish"),
        (([0, 1, 2, 3, 4], [2, 2, 2, 2, 2], 2), "a steady stream"),
    ]
    run(student, cases, ("continuous",))


@check("Requests are served by arrival, then by index, not by index alone", hint="fcfs")
def arrival_order(student: Student) -> None:
    cases = [
        (([5, 0, 3, 0, 3], [2, 3, 1, 2, 4], 1), "requests listed out of arrival order"),
        (([2, 2, 0, 2, 1], [1, 3, 2, 1, 2], 2), "ties on arrival"),
        (([4, 1, 1, 0], [3, 1, 5, 2], 3), "a late request listed first"),
    ]
    run(student, cases)


@check("The prefill step yields the first token", hint="prefill")
def prefill_token(student: Student) -> None:
    cases = [
        (([0], [1], 1), "a single one-token request"),
        (([2], [5], 1), "a single request"),
        (([0, 0, 0, 0], [1, 1, 1, 1], 4), "one-token requests, a slot each"),
        (([1, 3], [4, 2], 2), "two requests with room for both"),
    ]
    run(student, cases)


@check("Static batches finish together, and nobody joins a running batch", hint="static")
def static_batches(student: Student) -> None:
    cases = [
        (([0, 0, 0], [1, 6, 2], 3), "one batch of mixed lengths"),
        (([0, 1, 2, 3], [5, 1, 1, 1], 4), "arrivals during a batch with free places"),
        (([0, 0, 2, 2, 9], [3, 3, 4, 1, 2], 2), "batches separated by an idle gap"),
        (([1, 1, 1, 1, 1], [2, 4, 1, 3, 2], 2), "more requests than fit in one batch"),
    ]
    run(student, cases, ("static",))


@check("Several requests start in the same step when slots are free", hint="fill-slots")
def many_admissions(student: Student) -> None:
    cases = [
        (([0, 0, 0, 0, 0], [3, 3, 3, 3, 3], 3), "five requests at once, three slots"),
        (([0, 0, 0, 4, 4, 4], [4, 1, 1, 2, 2, 2], 4), "a burst after the first requests end"),
        (([0, 0, 2, 2, 2], [2, 2, 3, 3, 1], 5), "room for everyone"),
    ]
    run(student, cases, ("continuous",))


@check("Nobody starts before arriving, and idle steps stay idle", hint="arrival")
def idle_steps(student: Student) -> None:
    cases = [
        (([4, 9], [2, 1], 2), "two late requests"),
        (([0, 10, 10, 25], [3, 2, 2, 1], 1), "gaps between arrivals"),
        (([6, 6, 0], [1, 1, 2], 3), "a burst after an early request"),
    ]
    run(student, cases)


@check("Random traces, both policies", hint="fcfs")
def random_traces(student: Student, rng: np.random.Generator) -> None:
    settings = [(1, 0, 3, 1), (6, 4, 5, 2), (10, 20, 4, 3), (15, 8, 8, 2), (25, 30, 6, 4), (40, 60, 10, 5),
                (12, 3, 12, 1), (30, 10, 3, 8), (8, 40, 2, 2), (50, 100, 15, 6)]  # fmt: skip
    cases = [(random_case(rng, *s), f"random trace {k} of {len(settings)}") for k, s in enumerate(settings, start=1)]
    run(student, cases)


@check("Arguments given as numpy integers", hint="form")
def numpy_integers(student: Student, rng: np.random.Generator) -> None:
    arrivals, out_lens, _ = random_case(rng, 9, 6, 4, 3)
    case: Case = ([np.int64(a) for a in arrivals], [np.int32(o) for o in out_lens], 3)
    run(student, [(case, "numpy integers")])


@check("arrivals and out_lens are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    arrivals, out_lens = [3, 0, 2, 0, 5, 1], [2, 4, 1, 3, 2, 2]
    # The same lists in both calls of one crossing: a call that changes them changes what the second one sees.
    for name, want in (("static_batching", expected_static), ("continuous_batching", expected_continuous)):
        first, second = getattr(student, name).each([(arrivals, out_lens, 2), (arrivals, out_lens, 3)])
        compare(first, want(arrivals, out_lens, 2), f"{name}, first call")
        compare(second, want(arrivals, out_lens, 3), f"{name}, second call, on the same lists")
