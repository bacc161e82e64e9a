"""Hidden checks for "Many LoRA Adapters in One Batch".

Expected outputs come from merged weights, one row at a time: for a row with adapter j the check
forms the full matrix W + s_j · B_j A_j (a different route from the low-rank product the
solution computes) and multiplies the row by it; a row with -1 uses W alone. Expected groupings
come from sorting the row indices by the key (adapter id, row index) with Python's sorted() and
scanning the sorted ids for runs. The worked example was computed by hand. A wrong answer is named
by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail, values_shown

# --------------------------------------------------------------------------- independent answers


def expected_y(x, w, lora_a, lora_b, adapter_idx, scales) -> np.ndarray:
    rows = []
    for i, j in enumerate(int(k) for k in adapter_idx):
        merged = w if j == -1 else w + scales[j] * (lora_b[j] @ lora_a[j])
        rows.append(merged @ x[i])
    return np.array(rows)


def expected_groups(adapter_idx) -> tuple[list[int], list[tuple[int, int, int]]]:
    ids = [int(k) for k in adapter_idx]
    perm = sorted(range(len(ids)), key=lambda i: (ids[i], i))
    segments, k = [], 0
    while k < len(perm):
        end = k
        while end < len(perm) and ids[perm[end]] == ids[perm[k]]:
            end += 1
        if ids[perm[k]] >= 0:
            segments.append((ids[perm[k]], k, end))
        k = end
    return perm, segments


def random_layer(rng: np.random.Generator, n: int, d_in: int, d_out: int, ranks: list[int], p_base: float):
    """x, w, the adapters of the given ranks, ids with about a share p_base of -1, and the scales."""
    x = rng.normal(size=(n, d_in))
    w = rng.normal(size=(d_out, d_in))
    lora_a = [rng.normal(size=(r, d_in)) for r in ranks]
    lora_b = [rng.normal(size=(d_out, r)) for r in ranks]
    ids = rng.integers(0, len(ranks), size=n)
    ids[rng.random(n) < p_base] = -1
    scales = rng.uniform(0.25, 4.0, size=len(ranks))
    return x, w, lora_a, lora_b, ids, scales


# --------------------------------------------------------------------------- comparing answers


def expect_y(got: Any, want: np.ndarray, what: str) -> None:
    if not isinstance(got, np.ndarray) or got.dtype != np.float64:
        fail(f"y ({what}) should be a float64 numpy array, got {describe(got)}", hint="form")
    atol = 1e-9 * max(1.0, float(np.max(np.abs(want))))
    expect_array(got, want, what=f"y ({what})", rtol=0, atol=atol, hint="form")


def expect_groups(result: Any, want: tuple[list[int], list[tuple[int, int, int]]], what: str) -> None:
    perm, segments = expect_sequence(result, 2, what=f"group_rows's return value ({what})", hint="form")
    if not isinstance(perm, np.ndarray) or perm.dtype.kind not in "iu":
        fail(f"perm ({what}) should be a numpy array of integers, got {describe(perm)}", hint="form")
    if not isinstance(segments, list):
        fail(f"segments ({what}) should be a list, got {describe(segments)}", hint="form")
    for n, seg in enumerate(segments):
        ints = (
            all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in seg)
            if isinstance(seg, tuple)
            else False
        )
        if not ints or len(seg) != 3:
            fail(
                f"segment {n} ({what}) should be a tuple of three ints (j, start, end), got {describe(seg)}",
                hint="form",
            )
    want_perm, want_segments = want
    expect_array(perm, np.array(want_perm, dtype=np.int64), what=f"perm ({what})", exact=True, hint="form")
    got_segments = [tuple(int(v) for v in seg) for seg in segments]
    if got_segments != want_segments:
        if values_shown():
            message = f"segments ({what}): expected {want_segments}, got {got_segments}"
        elif len(got_segments) != len(want_segments):
            message = (f"segments ({what}) has {len(got_segments)} segments where {len(want_segments)} were "
                       "expected: one per adapter id (≥ 0) that occurs")  # fmt: skip
        else:
            first = next(k for k, (g, e) in enumerate(zip(got_segments, want_segments, strict=True)) if g != e)
            part = next(name for name, g, e in zip(("j", "start", "end"), got_segments[first], want_segments[first],
                                                   strict=True) if g != e)  # fmt: skip
            message = f"segments ({what}) differ from the expected ones: first at segment {first}, its {part}"
        fail(message, hint=None, expected=want_segments, got=segments)


# --------------------------------------------------------------------------- the checks


def worked_layer():
    x = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    lora_a = [np.array([[1.0, 0.0]]), np.eye(2)]
    lora_b = [np.array([[1.0], [1.0]]), np.array([[0.0, 1.0], [1.0, 0.0]])]
    return x, np.eye(2), lora_a, lora_b, np.array([1, -1, 0]), np.array([2.0, 0.5])


@check("The worked example from the statement", public=True, points=2, hint="minus-one")
def worked_example(student: Student) -> None:
    want = np.array([[2.0, 2.5], [3.0, 4.0], [15.0, 16.0]])
    expect_y(student.multi_lora(*worked_layer()), want, "the worked example")
    expect_groups(student.group_rows(np.array([1, -1, 0, 1, 0])), ([1, 2, 4, 0, 3], [(0, 1, 3), (1, 3, 5)]),
                  "the worked example")  # fmt: skip


@check("y is a float64 array (n, d_out); group_rows gives an int array and a list of int tuples", public=True,
       hint="form")  # fmt: skip
def result_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    layer = random_layer(rng, 4, 3, 5, [2, 1], 0.0)
    expect_y(student.multi_lora(*layer), expected_y(*layer), "4 rows, d_in = 3, d_out = 5")
    ids = np.array([2, 0, -1, 2])
    expect_groups(student.group_rows(ids), expected_groups(ids), "four rows")


@check("Rows with -1 get the base model alone", hint="minus-one")
def base_rows(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = []
    for n, (rows, ranks, p_base, what) in enumerate(
        [
            (6, [2, 3, 1], 1.0, "every row uses the base model"),
            (9, [1, 4], 0.5, "half the rows use the base model, two adapters"),
            (7, [3, 2, 2], 0.3, "a third of the rows use the base model, three adapters"),
        ]
    ):
        d_in, d_out = 4 + n, 6 - n
        cases.append((random_layer(rng, rows, d_in, d_out, ranks, p_base), what))
    results = student.multi_lora.each([layer for layer, _ in cases])
    for (layer, what), y in zip(cases, results, strict=True):
        expect_y(y, expected_y(*layer), what)


@check("Adapters of different ranks and scales, d_in ≠ d_out", hint="lora-term")
def random_batches(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(10):
        k = int(rng.integers(1, 6))
        ranks = [int(r) for r in rng.integers(1, 9, size=k)]
        d_in, d_out = int(rng.integers(2, 12)), int(rng.integers(2, 12))
        if d_in == d_out:
            d_out += 1
        rows = int(rng.integers(1, 40))
        cases.append((random_layer(rng, rows, d_in, d_out, ranks, 0.2),
                      f"random batch {n + 1} of 10: {rows} rows, {k} adapters"))  # fmt: skip
    results = student.multi_lora.each([layer for layer, _ in cases])
    for (layer, what), y in zip(cases, results, strict=True):
        expect_y(y, expected_y(*layer), what)


@check("Square layers, one row, unused adapters, large values", hint="lora-term")
def special_layers(student: Student) -> None:
    rng = np.random.default_rng(3)
    square = random_layer(rng, 12, 6, 6, [2, 5, 3], 0.25)
    one_row = random_layer(rng, 1, 5, 3, [1, 2], 0.0)
    x, w, lora_a, lora_b, ids, scales = random_layer(rng, 10, 4, 7, [3, 1, 2, 4], 0.0)
    unused = (x, w, lora_a, lora_b, np.where(ids % 2 == 0, 2, -1), scales)  # only adapter 2 is used
    x, w, lora_a, lora_b, ids, scales = random_layer(rng, 8, 5, 4, [2, 3], 0.2)
    large = (x * 1e6, w * 1e3, lora_a, lora_b, ids, scales)
    cases = [(square, "a square layer, three adapters"), (one_row, "a single row"),
             (unused, "four adapters, only one of them used"), (large, "inputs in the millions")]  # fmt: skip
    results = student.multi_lora.each([layer for layer, _ in cases])
    for (layer, what), y in zip(cases, results, strict=True):
        expect_y(y, expected_y(*layer), what)


@check("group_rows: small cases and edges", hint="segments")
def group_edges(student: Student) -> None:
    cases = [
        (np.array([-1, -1, -1]), "every row on the base model"),
        (np.array([0]), "a single row"),
        (np.array([3, 3, 3, 3]), "one adapter for every row"),
        (np.array([5, -1, 2, 5, 2, -1, 0]), "ids with gaps, and base rows"),
        (np.array([4, 1, 4, 1, 4, 1, -1, 0]), "interleaved ids"),
    ]
    results = student.group_rows.each([(ids,) for ids, _ in cases])
    for (ids, what), result in zip(cases, results, strict=True):
        expect_groups(result, expected_groups(ids), what)


@check("group_rows: long batches keep equal ids in row order (a stable sort)", hint="stable")
def group_stable(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, (rows, k) in enumerate([(300, 4), (1000, 8), (64, 2), (257, 16), (40, 3)]):
        ids = rng.integers(-1, k, size=rows)
        cases.append((ids, f"long batch {n + 1} of 5: {rows} rows"))
    results = student.group_rows.each([(ids,) for ids, _ in cases])
    for (ids, what), result in zip(cases, results, strict=True):
        expect_groups(result, expected_groups(ids), what)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    rng = np.random.default_rng(4)
    layer = random_layer(rng, 8, 5, 3, [2, 3], 0.25)
    # The same arrays and lists for two calls in one crossing: a call that changes them changes
    # what the second sees.
    results = student.multi_lora.each([layer, layer])
    want = expected_y(*random_layer(np.random.default_rng(4), 8, 5, 3, [2, 3], 0.25))
    for what, y in zip(["a first call", "a second call with the same inputs"], results, strict=True):
        expect_y(y, want, what)
    ids = np.array([2, 0, -1, 2, 0, 1])
    for what, result in zip(["a first call", "a second call with the same ids"],
                            student.group_rows.each([(ids,), (ids,)]), strict=True):  # fmt: skip
        expect_groups(result, expected_groups(ids), what)
