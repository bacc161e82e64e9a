"""Hidden checks for "Blelloch Scan".

Expected values never replay the sweeps. ``out`` is the exclusive scan from its definition, with
Python ints. Each array of the trace comes from a closed form over the prefix sums S of the padded
input (S[j] = the sum of its first j entries), with low(m) = the largest power of two dividing m:

* after the up-sweep level d, entry i holds the sum of the w entries ending at i, w = min(low(i + 1), 2d);
* after the down-sweep level d, entry i holds S[i + 1 − d] when d divides i + 1 (its subtree's
  exclusive prefix), and otherwise still its up-sweep sum over the low(i + 1) entries ending at i.

The segmented scan comes from its definition too: for each i, the latest start s ≤ i, then
x[s] + … + x[i − 1]. A wrong answer is named by the grader, by comparing it with the exercise's
mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail, values_shown

# --------------------------------------------------------------------------- independent expected values


def padded_length(n: int) -> int:
    P = 1
    for _ in range(64):
        if n <= P:
            return P
        P *= 2
    raise ValueError(n)


def low(m: int) -> int:
    return m & -m


def exclusive(x: np.ndarray) -> list[int]:
    values = [int(v) for v in x]
    return [sum(values[:i]) for i in range(len(values))]


def expected_trace(x: np.ndarray) -> list[tuple[str, int, list[int]]]:
    """(phase, d, the array after that level) for every level, from the closed forms."""
    n = len(x)
    P = padded_length(n)
    values = [int(v) for v in x] + [0] * (P - n)
    S = [sum(values[:j]) for j in range(P + 1)]
    ds = [1 << k for k in range(P.bit_length() - 1)]
    steps = []
    for d in ds:
        widths = [min(low(i + 1), 2 * d) for i in range(P)]
        steps.append(("up-sweep", d, [S[i + 1] - S[i + 1 - w] for i, w in enumerate(widths)]))
    for d in reversed(ds):
        row = [S[i + 1 - d] if (i + 1) % d == 0 else S[i + 1] - S[i + 1 - low(i + 1)] for i in range(P)]
        steps.append(("down-sweep", d, row))
    return steps


def segmented(x: np.ndarray, flags: np.ndarray) -> list[int]:
    values = [int(v) for v in x]
    out = []
    for i in range(len(values)):
        start = max([0] + [j for j in range(i + 1) if flags[j]])
        out.append(sum(values[start:i]))
    return out


# --------------------------------------------------------------------------- comparing answers


def int64_array(got: Any, shape: tuple[int, ...]) -> bool:
    return isinstance(got, np.ndarray) and got.dtype == np.int64 and got.shape == shape


def expect_scan(got: Any, x: np.ndarray, what: str) -> None:
    """The form first (out, and a list of int64 arrays as long as the padded input), then every value."""
    n = len(x)
    P = padded_length(n)
    steps = expected_trace(x)
    out, trace = expect_sequence(got, 2, what=f"{what}: the return value", hint="form")
    if not int64_array(out, (n,)):
        expect_array(out, exclusive(x), what=f"{what}: out", dtype=np.int64, exact=True, hint="form")
    if type(trace) is not list:
        fail(f"{what}: trace should be a list of int64 arrays, got {describe(trace)}", hint="form")
    if len(trace) != len(steps):
        half = len(steps) // 2
        levels = (
            f"P = {P}: {half} levels of the up-sweep, then {half}"
            if values_shown()
            else "log₂P levels of the up-sweep, then log₂P"
        )
        fail(f"{what}: trace should hold {len(steps)} arrays ({levels} of the down-sweep; the clearing of the root "
             f"is not recorded), got {len(trace)}", hint="trace")  # fmt: skip
    for j, (step, (_, _, want)) in enumerate(zip(trace, steps, strict=True)):
        if not int64_array(step, (P,)):
            expect_array(step, want, what=f"{what}: trace[{j}]", dtype=np.int64, exact=True, hint="form")
    expect_array(out, exclusive(x), what=f"{what}: out", dtype=np.int64, exact=True, hint="form")
    for j, (step, (phase, d, want)) in enumerate(zip(trace, steps, strict=True)):
        label = f"{what}: trace[{j}], the array after the {phase} level d = {d}"
        expect_array(step, want, what=label, dtype=np.int64, exact=True, hint="form")


def expect_segmented(got: Any, x: np.ndarray, flags: np.ndarray, what: str) -> None:
    expect_array(got, segmented(x, flags), what=what, dtype=np.int64, exact=True, hint="form")


def scans(student: Student, inputs: list[np.ndarray], labels: list[str]) -> None:
    results = student.blelloch_scan.each([(x,) for x in inputs])
    for x, label, got in zip(inputs, labels, results, strict=True):
        expect_scan(got, x, label)


def segmented_scans(student: Student, cases: list[tuple[np.ndarray, np.ndarray, str]]) -> None:
    results = student.segmented_scan.each([(x, flags) for x, flags, _ in cases])
    for (x, flags, label), got in zip(cases, results, strict=True):
        expect_segmented(got, x, flags, label)


def ints(values: list[int]) -> np.ndarray:
    return np.array(values, dtype=np.int64)


def bools(text: str) -> np.ndarray:
    return np.array([c == "T" for c in text], dtype=bool)


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement: eight elements, every level", public=True, points=2, hint="form")
def worked_example(student: Student) -> None:
    x = ints([3, 1, 7, 0, 4, 1, 6, 3])
    trace = [
        [3, 4, 7, 7, 4, 5, 6, 9],
        [3, 4, 7, 11, 4, 5, 6, 14],
        [3, 4, 7, 11, 4, 5, 6, 25],
        [3, 4, 7, 0, 4, 5, 6, 11],
        [3, 0, 7, 4, 4, 11, 6, 16],
        [0, 3, 4, 11, 11, 15, 16, 22],
    ]
    assert [step for _, _, step in expected_trace(x)] == trace  # the statement's table, by the closed forms
    expect_scan(student.blelloch_scan(x), x, "blelloch_scan of the eight elements")


@check("The second example: five elements padded to eight", public=True, hint="padding")
def padded_example(student: Student) -> None:
    x = ints([1, 2, 3, 4, 5])
    assert exclusive(x) == [0, 1, 3, 6, 10] and expected_trace(x)[-1][2] == [0, 1, 3, 6, 10, 15, 15, 15]
    expect_scan(student.blelloch_scan(x), x, "blelloch_scan of the five elements")


@check("The segmented examples from the statement", public=True, hint="segment-reset")
def segmented_examples(student: Student) -> None:
    cases = [
        (ints([1, 2, 3, 4, 5]), bools("TFTFF"), "the first segmented example"),
        (ints([5, 5, 5]), bools("FTF"), "the second segmented example (flags[0] False)"),
    ]
    assert segmented(*cases[0][:2]) == [0, 1, 0, 3, 7] and segmented(*cases[1][:2]) == [0, 0, 5]
    segmented_scans(student, cases)


@check("Returns out and a list of 2·log₂P int64 arrays of length P; segmented_scan an int64 array", hint="form")
def result_form(student: Student, rng: np.random.Generator) -> None:
    x = rng.integers(-20, 20, size=6, dtype=np.int64)
    out, trace = expect_sequence(student.blelloch_scan(x), 2, what="blelloch_scan's return value (6 elements)")
    if not int64_array(out, (6,)):
        fail(f"out should be an int64 array of shape (6,), got {describe(out)}")
    if type(trace) is not list or len(trace) != 6:
        fail(f"for 6 elements (P = 8), trace should be a list of 6 int64 arrays, got {describe(trace)}", hint="trace")
    for j, step in enumerate(trace):
        if not int64_array(step, (8,)):
            fail(f"trace[{j}] should be an int64 array of shape (8,): a copy of the padded array, got {describe(step)}")
    got = student.segmented_scan(x, bools("FFTFTF"))
    if not int64_array(got, (6,)):
        fail(f"segmented_scan of 6 elements should return an int64 array of shape (6,), got {describe(got)}")


@check("One element: out is [0] and the trace is empty", hint="trace")
def single_element(student: Student) -> None:
    scans(student, [ints([7]), ints([-3])], ["blelloch_scan of one element", "blelloch_scan of another element"])


@check("Lengths that are powers of two, with negative values", hint="down-sweep")
def powers_of_two(student: Student, rng: np.random.Generator) -> None:
    sizes = [2, 4, 16, 32, 64]
    inputs = [rng.integers(-1000, 1000, size=n, dtype=np.int64) for n in sizes]
    scans(student, inputs, [f"blelloch_scan, case {k} of {len(sizes)} ({n} elements)" for k, n in enumerate(sizes, 1)])


@check("Lengths that are not powers of two: padded with zeros", hint="padding")
def padded_lengths(student: Student, rng: np.random.Generator) -> None:
    sizes = [3, 5, 6, 7, 9, 13, 17, 31, 33, 100]
    inputs = [rng.integers(1, 1000, size=n, dtype=np.int64) for n in sizes]
    scans(student, inputs, [f"blelloch_scan, case {k} of {len(sizes)} ({n} elements)" for k, n in enumerate(sizes, 1)])


@check("Large values: sums near 2^61 stay exact", hint="form")
def large_values(student: Student, rng: np.random.Generator) -> None:
    big = 2**57
    inputs = [rng.integers(big // 2, big, size=16, dtype=np.int64), rng.integers(-big, big, size=11, dtype=np.int64)]
    inputs[1][0] = big - 1  # odd, far above 2^53: float64 cannot hold it
    scans(student, inputs, ["blelloch_scan of 16 large values", "blelloch_scan of 11 large values of both signs"])
    x = rng.integers(big // 2, big, size=12, dtype=np.int64) | 1
    segmented_scans(student, [(x, bools("FFFTFFFFFTFF"), "segmented_scan of 12 large values")])


@check("x is left unchanged", hint="no-mutation")
def input_unchanged(student: Student, rng: np.random.Generator) -> None:
    base = rng.integers(1, 100, size=8, dtype=np.int64)
    # Views of one array for every call of the batch (they share memory in the sandbox too): a call
    # that scans its x in place changes what the next ones see.
    views = [base[:], base[:4], base[:]]
    results = student.blelloch_scan.each([(x,) for x in views])
    for k, (x, got) in enumerate(zip(views, results, strict=True), start=1):
        expect_scan(got, x, f"blelloch_scan, call {k} of 3 on one array")
    flags = bools("FFFTFFTFFF")
    y = rng.integers(1, 100, size=10, dtype=np.int64)
    # The first call's flags[0] is flags[1] of the second: setting it in place splits the second's first segment.
    segmented_scans(student, [
        (y[1:], flags[1:], "segmented_scan, call 1 of 2 on one flags array"),
        (y[:], flags[:], "segmented_scan, call 2 of 2 on one flags array"),
    ])  # fmt: skip


@check("Segmented scans: random segments", hint="segment-reset")
def segmented_random(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k, n in enumerate([5, 8, 13, 20, 33, 64], start=1):
        flags = rng.random(n) < 0.3
        flags[0] = k % 2 == 0
        flags[rng.integers(1, n)] = True  # at least one head after index 0
        x = rng.integers(-50, 100, size=n, dtype=np.int64)
        cases.append((x, flags, f"segmented_scan, case {k} of 6 ({n} elements)"))
    segmented_scans(student, cases)


@check("Segmented scans: no flag, every flag, heads side by side or last, a first segment without a flag",
       hint="first-segment")  # fmt: skip
def segmented_edges(student: Student, rng: np.random.Generator) -> None:
    patterns = [
        ("FFFFFF", "no flag: one segment"),
        ("TTTTTT", "every index a head"),
        ("FFFFFT", "a head at the last index only"),
        ("FTTFFT", "heads side by side, flags[0] False"),
        ("TFFTTF", "heads side by side, flags[0] True"),
        ("FFFTFF", "a first segment without a flag"),
        ("T", "one element, flagged"),
        ("F", "one element, not flagged"),
    ]
    cases = [(rng.integers(1, 100, size=len(p), dtype=np.int64), bools(p), f"segmented_scan, {label}")
             for p, label in patterns]  # fmt: skip
    segmented_scans(student, cases)
