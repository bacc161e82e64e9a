"""Hidden checks for "Pipeline Schedules: GPipe and 1F1B".

The expected schedules come from a clock written here: at every integer time t, each stage whose
previous op has ended looks at the next op of its list and starts it if the op it waits for has
ended by t (durations are whole numbers, so every op starts at an integer time). The 1F1B lists are
built with Megatron-LM's counters (warm-up forwards, then one forward and one backward while
forwards remain, then the remaining backwards). The bubble is counted exactly as idle cells over
all cells, and the micro-batches in flight by walking each stage's row. Nothing is shared with a
solution. A wrong answer is named by the grader, by comparing it with the exercise's mutants on the
same calls.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from grader.checks import (
    Student,
    check,
    describe,
    expect_float,
    expect_integer,
    expect_ints,
    expect_sequence,
    fail,
    values_shown,
)

KINDS = ("gpipe", "1f1b")

# --------------------------------------------------------------------------- an independent clock


def op_list(s: int, p: int, m: int, kind: str) -> list[tuple[str, int]]:
    if kind == "gpipe":
        return [("F", j) for j in range(m)] + [("B", j) for j in range(m)]
    seq: list[tuple[str, int]] = []
    forwards = backwards = 0
    for _ in range(min(p - s - 1, m)):
        seq.append(("F", forwards))
        forwards += 1
    while forwards < m:
        seq += [("F", forwards), ("B", backwards)]
        forwards += 1
        backwards += 1
    while backwards < m:
        seq.append(("B", backwards))
        backwards += 1
    return seq


def clock(t_fwd: list[int], t_bwd: list[int], m: int, kind: str) -> dict[tuple[str, int, int], tuple[int, int]]:
    """(start, end) of every op (name, stage, micro-batch)."""
    p = len(t_fwd)
    lists = [op_list(s, p, m, kind) for s in range(p)]
    nxt, idle_from = [0] * p, [0] * p
    times: dict[tuple[str, int, int], tuple[int, int]] = {}
    never = float("inf")

    def ended(op: tuple[str, int, int], t: int) -> bool:
        return times.get(op, (never, never))[1] <= t

    t = 0
    while any(nxt[s] < len(lists[s]) for s in range(p)):
        for s in range(p):
            if nxt[s] == len(lists[s]) or idle_from[s] > t:
                continue
            name, j = lists[s][nxt[s]]
            if name == "F":
                ready = s == 0 or ended(("F", s - 1, j), t)
            else:
                ready = ended(("B", s + 1, j), t) if s + 1 < p else ended(("F", s, j), t)
            if ready:
                length = t_fwd[s] if name == "F" else t_bwd[s]
                times[name, s, j] = (t, t + length)
                idle_from[s] = t + length
                nxt[s] += 1
        t += 1
    return times


def expected(t_fwd: list[int], t_bwd: list[int], m: int, kind: str) -> tuple[list[list[str]], int, float, list[int]]:
    """(grid, makespan, bubble, peak_in_flight)."""
    times = clock(t_fwd, t_bwd, m, kind)
    p = len(t_fwd)
    makespan = max(e for _, e in times.values())
    grid = [["" for _ in range(makespan)] for _ in range(p)]
    for (name, s, j), (a, e) in times.items():
        for t in range(a, e):
            assert grid[s][t] == ""
            grid[s][t] = name + str(j)
    idle = sum(row.count("") for row in grid)
    peaks = []
    for s in range(p):
        live = 0
        for t in range(makespan):
            live = max(live, sum(1 for j in range(m) if times["F", s, j][0] <= t < times["B", s, j][1]))
        peaks.append(live)
    if kind == "1f1b":  # what the statement promises
        assert peaks == [min(p - s, m) for s in range(p)]
    return grid, makespan, float(Fraction(idle, p * makespan)), peaks


# --------------------------------------------------------------------------- comparing


def expect_grid(got: Any, want: list[list[str]], what: str) -> None:
    p, makespan = len(want), len(want[0])
    if type(got) is not list or any(type(row) is not list for row in got):
        fail(f"{what} should be a list of {p} lists of strings, one per stage, got {describe(got)}", hint="form")
    if any(not isinstance(cell, str) for row in got for cell in row):
        fail(f'{what} should hold only strings ("F3", "B0" or ""), got another kind of cell', hint="form")
    if got == want:
        return
    if values_shown():
        rows = "\n".join(" ".join(cell or "." for cell in row) for row in got)
        message = f'{what} is not the expected grid; your rows ("." for "") are:\n{rows}'
        fail(message, hint=None, expected=want, got=got)
    if len(got) != p:
        fail(f"{what} has {len(got)} rows where {p} (one per stage) were expected", expected=want, got=got)
    lengths = sorted({len(row) for row in got})
    if len(lengths) > 1:
        fail(f"{what} has rows of {len(lengths)} different lengths: every row should have as many cells as "
             "the makespan", hint="padding", expected=want, got=got)  # fmt: skip
    if lengths[0] != makespan:
        fail(f"{what} has rows of {lengths[0]} cells where {makespan} (the makespan) were expected",
             hint=None, expected=want, got=got)  # fmt: skip
    cells = [(s, t) for s in range(p) for t in range(makespan) if got[s][t] != want[s][t]]
    first = min(cells, key=lambda c: (c[1], c[0]))
    fail(f"{what} differs from the expected grid in {len(cells)} cells, the earliest at stage {first[0]}, "
         f"time {first[1]}", hint=None, expected=want, got=got)  # fmt: skip


def expect_stats(got: Any, want: tuple[int, float, list[int]], what: str) -> None:
    makespan, bubble, peaks = expect_sequence(got, 3, what=f"{what}: the stats", hint="form")
    if not isinstance(got, tuple):
        fail(f"{what}: the stats should be a tuple (makespan, bubble, peak_in_flight), got a list", hint="form")
    expect_integer(makespan, want[0], what=f"{what}: the makespan")
    expect_float(bubble, want[1], what=f"{what}: the bubble", rtol=1e-9, atol=1e-12)
    expect_ints(peaks, want[2], what=f"{what}: peak_in_flight")


Case = tuple[list[int], list[int], int, str]


def run(student: Student, cases: list[tuple[Case, str]], grids: bool = True, stats: bool = True) -> None:
    args = [case for case, _ in cases]
    got_grids = student.pipeline_schedule.each(args) if grids else [None] * len(args)
    got_stats = student.pipeline_stats.each(args) if stats else [None] * len(args)
    for (case, what), grid, stat in zip(cases, got_grids, got_stats, strict=True):
        want_grid, *want_stats = expected(*case)
        if grids:
            expect_grid(grid, want_grid, f"{what}: the grid")
        if stats:
            expect_stats(stat, tuple(want_stats), what)


def random_cases(rng, kind: str, count: int, label: str, equal: bool = False) -> list[tuple[Case, str]]:
    cases = []
    for k in range(count):
        p, m = int(rng.integers(1, 6)), int(rng.integers(1, 8))
        if equal:
            t_fwd, t_bwd = [int(rng.integers(1, 3))] * p, [int(rng.integers(1, 4))] * p
        else:
            t_fwd = [int(v) for v in rng.integers(1, 5, size=p)]
            t_bwd = [int(v) for v in rng.integers(1, 6, size=p)]
        cases.append(((t_fwd, t_bwd, m, kind), f"{label} {k + 1} of {count}: {p} stages, {m} micro-batches"))
    return cases


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement: 3 stages, 2 micro-batches, unit times", public=True, points=2,
       hint="dependencies")  # fmt: skip
def worked_example(student: Student) -> None:
    run(student, [(([1, 1, 1], [1, 1, 1], 2, kind), kind) for kind in KINDS])


@check("The other examples from the statement: 4 stages with t_b = 2 t_f, and unequal stages", public=True,
       hint="op-lists")  # fmt: skip
def worked_unequal(student: Student) -> None:
    cases = [(([1] * 4, [2] * 4, 6, kind), f"{kind}, 4 stages, 6 micro-batches") for kind in KINDS]
    cases += [(([1, 2, 1], [2, 3, 2], 5, kind), f"{kind}, unequal stages") for kind in KINDS]
    run(student, cases)


@check("pipeline_schedule returns a list of p lists of strings; pipeline_stats (int, float, list of ints)",
       public=True, hint="form")  # fmt: skip
def return_forms(student: Student) -> None:
    grid = student.pipeline_schedule([2, 1], [1, 3], 2, "1f1b")
    if type(grid) is not list or len(grid) != 2 or any(type(row) is not list for row in grid):
        fail(f"pipeline_schedule should return a list of 2 lists (one per stage), got {describe(grid)}", hint="form")
    if any(not isinstance(cell, str) for row in grid for cell in row):
        fail('every cell of the grid should be a string: "F0", "B1" or ""', hint="form")
    stats = student.pipeline_stats([2, 1], [1, 3], 2, "1f1b")
    if not isinstance(stats, tuple) or len(stats) != 3:
        fail(f"pipeline_stats should return a tuple of 3 values, got {describe(stats)}", hint="form")
    _, makespan, bubble, _ = expected([2, 1], [1, 3], 2, "1f1b")
    if isinstance(stats[0], bool) or not isinstance(stats[0], (int, np.integer)):
        expect_integer(stats[0], makespan, what="the makespan", hint="form")
    if not isinstance(stats[1], (float, np.floating)):
        expect_float(stats[1], bubble, what="the bubble", hint="form")
    peaks = stats[2]
    if type(peaks) is not list or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) for v in peaks):
        fail(f"peak_in_flight should be a Python list of ints, got {describe(peaks)}", hint="form")


@check("GPipe: random stage times and micro-batch counts", hint="op-lists")
def random_gpipe(student: Student, rng) -> None:
    run(student, random_cases(rng, "gpipe", 8, "gpipe case") + random_cases(rng, "gpipe", 3, "equal case", True))


@check("1F1B: random stage times and micro-batch counts", hint="op-lists")
def random_1f1b(student: Student, rng) -> None:
    run(student, random_cases(rng, "1f1b", 8, "1f1b case") + random_cases(rng, "1f1b", 3, "equal case", True))


@check("Few micro-batches: the 1F1B warm-up is cut to m, and a single stage", hint="warm-up")
def few_micro_batches(student: Student) -> None:
    shapes = [
        ([1, 2, 1, 1, 2], [2, 2, 3, 1, 2], 1),  # m = 1: one forward and one backward per stage
        ([2, 1, 1, 3], [1, 3, 2, 2], 2),  # m < p - 1: the warm-up is cut to m on the first stages
        ([1, 1, 2, 1], [2, 1, 1, 3], 3),  # m = p - 1
        ([1, 2, 1, 1], [1, 2, 2, 1], 4),  # m = p
        ([3], [2], 4),  # a single stage
        ([2, 1], [1, 2], 1),
        ([1, 3, 2], [2, 1, 4], 2),
    ]
    cases = [((t_fwd, t_bwd, m, kind), f"{kind}, small case {k + 1} of {len(shapes)}")
             for kind in KINDS for k, (t_fwd, t_bwd, m) in enumerate(shapes)]  # fmt: skip
    run(student, cases)


@check("Unequal stages: the bubble is counted on the real timeline, not given by (p−1)/(m+p−1)", hint="bubble")
def unequal_bubble(student: Student) -> None:
    shapes = [
        ([1, 3, 1], [2, 4, 2], 4),
        ([2, 1, 1, 1], [4, 2, 2, 2], 6),
        ([1, 1], [1, 5], 3),
        ([3, 2, 1], [3, 2, 1], 5),
    ]
    cases = [((t_fwd, t_bwd, m, kind), f"{kind}, unequal case {k + 1} of {len(shapes)}")
             for kind in KINDS for k, (t_fwd, t_bwd, m) in enumerate(shapes)]  # fmt: skip
    run(student, cases, grids=False)


@check("Micro-batches in flight: from the start of F to the end of B, that end excluded", hint="in-flight")
def in_flight(student: Student, rng) -> None:
    cases = random_cases(rng, "1f1b", 6, "1f1b case") + random_cases(rng, "gpipe", 4, "gpipe case")
    cases += [(([1, 1, 1, 1], [1, 1, 1, 1], 8, "1f1b"), "1f1b, back-to-back ops")]
    run(student, cases, grids=False)


@check("Twelve micro-batches: names such as F10 and B11", hint="form")
def many_micro_batches(student: Student) -> None:
    run(student, [(([1, 2, 1], [2, 2, 3], 12, kind), f"{kind}, twelve micro-batches") for kind in KINDS])


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    t_fwd, t_bwd = [2, 1, 3], [3, 2, 4]
    # The same lists for two calls in one crossing: a call that changes them changes the second answer.
    want = expected([2, 1, 3], [3, 2, 4], 3, "1f1b")
    for name in ("pipeline_schedule", "pipeline_stats"):
        first, second = getattr(student, name).each([(t_fwd, t_bwd, 3, "1f1b"), (t_fwd, t_bwd, 3, "1f1b")])
        for got, which in ((first, "first"), (second, "second")):
            what = f"the {which} of two calls on the same lists"
            if name == "pipeline_schedule":
                expect_grid(got, want[0], f"{what}: the grid")
            else:
                expect_stats(got, want[1:], what)
