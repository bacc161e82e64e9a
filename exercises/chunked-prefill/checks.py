"""Hidden checks for "Chunked Prefill with a Token Budget".

Expected schedules come from a simulator written here, request by request (each request a small
record of what it still has to prefill and to yield), with the budget of every step checked
against its batch; it shares no code with any solution. A wrong answer is named by the grader,
by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_sequence, fail, values_shown

# --------------------------------------------------------------------------- independent simulator


def simulate(arrivals, prompt_lens, out_lens, max_batch, token_budget, chunk):
    """The rules of the statement, one request record at a time."""
    reqs = [
        {"id": i, "arrival": int(a), "to_fill": int(p), "to_yield": int(o), "first": None, "finish": None}
        for i, (a, p, o) in enumerate(zip(arrivals, prompt_lens, out_lens, strict=True))
    ]
    queue = sorted(reqs, key=lambda r: (r["arrival"], r["id"]))
    active: list[dict] = []
    steps: list[list[tuple[int, int]]] = []
    t = 0
    while queue or active:
        left = token_budget
        plan: list[tuple[dict, int]] = []
        for r in active:
            if r["to_fill"] == 0:
                plan.append((r, 1))
                left -= 1
        for r in active:
            if r["to_fill"] > 0 and left > 0:
                take = min(r["to_fill"], chunk, left)
                plan.append((r, take))
                left -= take
        while queue and queue[0]["arrival"] <= t and len(active) < max_batch and left > 0:
            r = queue.pop(0)
            active.append(r)
            take = min(r["to_fill"], chunk, left)
            plan.append((r, take))
            left -= take
        assert left >= 0 and len(active) <= max_batch
        for r, k in plan:
            if r["to_fill"] > 0:
                r["to_fill"] -= k
                if r["to_fill"] > 0:
                    continue
                r["first"] = t
            r["to_yield"] -= 1
            if r["to_yield"] == 0:
                r["finish"] = t
        active = [r for r in active if r["finish"] is None]
        steps.append([(r["id"], k) for r, k in plan])
        t += 1
    return steps, [r["first"] for r in reqs], [r["finish"] for r in reqs]


# --------------------------------------------------------------------------- random traces


def random_trace(rng: np.random.Generator, n: int, spread: int, max_prompt: int, max_out: int) -> tuple:
    arrivals = [int(a) for a in rng.integers(0, spread + 1, size=n)]
    prompts = [int(p) for p in rng.integers(1, max_prompt + 1, size=n)]
    outs = [int(o) for o in rng.integers(1, max_out + 1, size=n)]
    max_batch = int(rng.integers(1, 5))
    budget = max_batch + int(rng.integers(0, 12))
    chunk = int(rng.integers(1, 10))
    return arrivals, prompts, outs, max_batch, budget, chunk


# --------------------------------------------------------------------------- talking to the solution


def as_ints(value: Any) -> list[int] | None:
    if not isinstance(value, (list, tuple)):
        return None
    if not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in value):
        return None
    return [int(x) for x in value]


def expect_steps(got: Any, want: list[list[tuple[int, int]]], what: str) -> None:
    if not isinstance(got, (list, tuple)):
        fail(f"steps ({what}) should be a list with one list of pairs per step, got {describe(got)}", hint="form")
    schedule = []
    for t, step in enumerate(got):
        pairs = [as_ints(pair) for pair in step] if isinstance(step, (list, tuple)) else None
        if pairs is None or any(p is None or len(p) != 2 for p in pairs):
            fail(f"step {t} of steps ({what}) should be a list of pairs (request, n_tokens) of ints, "
                 f"got {describe(step)}", hint="form")  # fmt: skip
        schedule.append([tuple(p) for p in pairs])
    if schedule == want:
        return
    if values_shown():
        message = f"steps ({what}): expected {want}, got {schedule}"
    elif len(schedule) != len(want):
        message = f"steps ({what}) holds {len(schedule)} steps where {len(want)} were expected"
    else:
        t = next(t for t, (a, b) in enumerate(zip(schedule, want, strict=True)) if a != b)
        count = sum(a != b for a, b in zip(schedule, want, strict=True))
        message = f"steps ({what}) differs from the expected schedule: first at step {t}; {count} steps differ"
    fail(message, hint=None, expected=want, got=got)


def expect_ints(got: Any, want: list[int], name: str, what: str) -> None:
    values = as_ints(got)
    if values is None:
        fail(f"{name} ({what}) should be a list of ints, got {describe(got)}", hint="form")
    if values == want:
        return
    if values_shown():
        message = f"{name} ({what}): expected {want}, got {values}"
    elif len(values) != len(want):
        message = f"{name} ({what}) has {len(values)} items where {len(want)} were expected"
    else:
        wrong = [i for i, (a, b) in enumerate(zip(values, want, strict=True)) if a != b]
        message = f"{name} ({what}) differs for {len(wrong)} of {len(want)} requests, first for request {wrong[0]}"
    fail(message, hint=None, expected=want, got=got)


def expect_result(result: Any, case: tuple, what: str) -> None:
    steps, first, finish = expect_sequence(result, 3, what=f"chunked_prefill's return value ({what})", hint="form")
    want_steps, want_first, want_finish = simulate(*case)
    expect_ints(first, want_first, "first_token_steps", what)
    expect_ints(finish, want_finish, "finish_steps", what)
    expect_steps(steps, want_steps, what)


def check_cases(student: Student, cases: list[tuple[tuple, str]]) -> None:
    results = student.chunked_prefill.each([case for case, _ in cases])
    for (case, what), result in zip(cases, results, strict=True):
        expect_result(result, case, what)


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2, hint="order")
def worked_example(student: Student) -> None:
    check_cases(student, [(([0, 0, 1], [5, 3, 2], [3, 2, 1], 2, 6, 4), "worked example")])


@check("Decodes come first, and empty steps before the first arrival", public=True, hint="order")
def worked_decodes_and_idle(student: Student) -> None:
    check_cases(
        student,
        [
            (([0, 1], [1, 9], [4, 1], 2, 3, 8), "decodes first"),
            (([2], [3], [1], 1, 1, 5), "empty steps"),
        ],
    )


@check("chunked_prefill returns (steps, first_token_steps, finish_steps) as lists", public=True, hint="form")
def return_forms(student: Student) -> None:
    result = student.chunked_prefill([1, 0], [2, 1], [1, 2], 2, 4, 4)
    if not isinstance(result, tuple) or len(result) != 3:
        fail(f"chunked_prefill should return a tuple of 3 values, got {describe(result)}", hint="form")
    steps, first, finish = result
    if not isinstance(steps, list) or not all(isinstance(step, list) for step in steps):
        fail(f"steps should be a list holding one list per step, got {describe(steps)}", hint="form")
    for name, value in (("first_token_steps", first), ("finish_steps", finish)):
        if not isinstance(value, list) or as_ints(value) is None:
            fail(f"{name} should be a Python list of ints, got {describe(value)}", hint="form")


@check("Random traces: bursts of requests with every kind of limit", hint="order")
def random_traces(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k in range(24):
        n = int(rng.integers(1, 13))
        case = random_trace(rng, n, spread=int(rng.integers(0, 15)), max_prompt=int(rng.integers(1, 30)), max_out=8)
        cases.append((case, f"trace {k + 1} of 24, {n} requests"))
    check_cases(student, cases)


@check("A budget the decodes can use up: prefills wait for what is left", hint="budget")
def tight_budget(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k in range(8):
        n = int(rng.integers(3, 9))
        arrivals = [int(a) for a in rng.integers(0, 6, size=n)]
        prompts = [int(p) for p in rng.integers(1, 20, size=n)]
        outs = [int(o) for o in rng.integers(2, 12, size=n)]
        max_batch = int(rng.integers(2, 5))
        budget = max_batch + int(rng.integers(0, 2))
        cases.append(((arrivals, prompts, outs, max_batch, budget, int(rng.integers(2, 9))), f"tight budget {k + 1}"))
    # Three decodes fill a budget of 3 exactly: the fourth request's prefill gets nothing for a while.
    cases.append((([0, 0, 0, 1], [1, 1, 1, 4], [6, 6, 6, 1], 4, 3, 4), "decodes filling the budget exactly"))
    check_cases(student, cases)


@check("Chunks of one token, and chunks larger than every prompt", hint="chunk")
def chunk_sizes(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k, chunk in enumerate([1, 1, 64, 64, 5, 6]):
        n = int(rng.integers(2, 8))
        arrivals = [int(a) for a in rng.integers(0, 5, size=n)]
        prompts = [int(p) for p in rng.integers(1, 16, size=n)]
        if chunk in (5, 6):  # prompts exactly one chunk long, and one token longer
            prompts = [chunk + int(rng.integers(0, 2)) for _ in range(n)]
        outs = [int(o) for o in rng.integers(1, 6, size=n)]
        max_batch = int(rng.integers(1, 4))
        cases.append(((arrivals, prompts, outs, max_batch, max_batch + int(rng.integers(0, 70)), chunk),
                      f"chunk sizes {k + 1}"))  # fmt: skip
    check_cases(student, cases)


@check("One output token: a request that finishes in the step its prompt completes", hint="first-token")
def single_output_tokens(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k in range(6):
        n = int(rng.integers(1, 9))
        arrivals = [int(a) for a in rng.integers(0, 4, size=n)]
        prompts = [int(p) for p in rng.integers(1, 12, size=n)]
        outs = [1 if rng.random() < 0.7 else int(rng.integers(2, 4)) for _ in range(n)]
        max_batch = int(rng.integers(1, 4))
        budget, chunk = max_batch + int(rng.integers(0, 6)), int(rng.integers(1, 8))
        cases.append(((arrivals, prompts, outs, max_batch, budget, chunk), f"short outputs {k + 1}"))
    check_cases(student, cases)


@check("Arrivals out of index order, and equal arrivals served by index", hint="fcfs")
def arrival_order(student: Student, rng: np.random.Generator) -> None:
    cases = [(([3, 0, 3, 1, 0], [4, 2, 3, 1, 5], [2, 3, 1, 2, 2], 2, 5, 3), "arrivals in a shuffled order")]
    for k in range(6):
        n = int(rng.integers(4, 10))
        arrivals = [int(a) for a in rng.permutation(np.repeat(np.arange(n // 2 + 1), 2))[:n]]
        prompts = [int(p) for p in rng.integers(1, 10, size=n)]
        outs = [int(o) for o in rng.integers(1, 6, size=n)]
        max_batch = int(rng.integers(1, 4))
        budget, chunk = max_batch + int(rng.integers(0, 8)), int(rng.integers(1, 6))
        cases.append(((arrivals, prompts, outs, max_batch, budget, chunk), f"shuffled arrivals {k + 1}"))
    check_cases(student, cases)


@check("A single slot, long idle gaps and a late request", hint="slots")
def slots_and_gaps(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (([0, 0, 0], [2, 3, 1], [2, 1, 3], 1, 4, 4), "one slot, three requests"),
        (([0, 60], [1, 2], [1, 1], 2, 2, 2), "a request arriving long after the first has finished"),
        (([5, 5, 40, 41], [3, 3, 2, 7], [2, 2, 3, 1], 3, 6, 3), "two bursts far apart"),
    ]
    for k in range(5):
        n = int(rng.integers(3, 8))
        arrivals = [int(a) for a in rng.integers(0, 30, size=n)]
        prompts = [int(p) for p in rng.integers(1, 10, size=n)]
        outs = [int(o) for o in rng.integers(1, 5, size=n)]
        cases.append(((arrivals, prompts, outs, 1, 1 + int(rng.integers(0, 5)), int(rng.integers(1, 6))),
                      f"one slot {k + 1}"))  # fmt: skip
    check_cases(student, cases)


@check("A slot is freed only after its request's last step", hint="slots")
def slot_freed_after_finish(student: Student) -> None:
    cases = [
        # Request 0 finishes in step 1; request 1, waiting since step 0, gets its slot in step 2.
        (([0, 0], [1, 2], [2, 1], 1, 4, 4), "one slot handed over"),
        (([0, 0, 1, 1], [2, 1, 3, 2], [1, 2, 2, 1], 2, 8, 2), "two slots handed over"),
    ]
    check_cases(student, cases)


@check("Long prompts cut into many chunks", hint="chunk")
def long_prompts(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k in range(4):
        n = int(rng.integers(2, 7))
        arrivals = [int(a) for a in rng.integers(0, 40, size=n)]
        prompts = [int(p) for p in rng.integers(100, 3000, size=n)]
        outs = [int(o) for o in rng.integers(1, 60, size=n)]
        max_batch = int(rng.integers(2, 6))
        cases.append(((arrivals, prompts, outs, max_batch, int(rng.integers(256, 1025)), int(rng.integers(64, 513))),
                      f"long prompts {k + 1}"))  # fmt: skip
    check_cases(student, cases)


@check("The lists passed in are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    arrivals, prompts, outs = [1, 0, 2, 0], [3, 4, 2, 5], [2, 1, 3, 2]
    # The same lists for two calls in one crossing: a call that changes them changes the second answer.
    case = (arrivals, prompts, outs, 2, 4, 3)
    check_cases(student, [(case, "call 1 of 2 with the same lists"), (case, "call 2 of 2 with the same lists")])
