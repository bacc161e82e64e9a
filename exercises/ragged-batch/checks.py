"""Hidden checks for "Metadata for a Ragged Batch".

Expected values are built here token by token, with plain Python loops over the requests and
their new tokens (no cumulative sums, no repeat): a running counter gives each token's flat index,
each token's slot is read from its request's block table by hand, and the mask is filled one
(row, key) pair at a time from the key's request and position. The worked example was computed
by hand. A wrong answer is named by the grader, by comparing it with the exercise's mutants on the
same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail

NAMES = ["positions", "query_start_loc", "seq_lens", "slot_mapping", "logits_indices"]

# --------------------------------------------------------------------------- independent answers


def expected_metadata(computed: list[int], new: list[int], tables: list[list[int]], block_size: int) -> list[list[int]]:
    positions, starts, lens, slots, last = [], [0], [], [], []
    flat = 0
    for r in range(len(new)):
        for i in range(new[r]):
            p = computed[r] + i
            positions.append(p)
            block, offset = divmod(p, block_size)
            slots.append(tables[r][block] * block_size + offset)
            flat += 1
        starts.append(flat)
        lens.append(computed[r] + new[r])
        last.append(flat - 1)
    return [positions, starts, lens, slots, last]


def expected_mask(computed: list[int], new: list[int]) -> np.ndarray:
    keys = []  # (request, position) of each column
    for r in range(len(new)):
        keys += [(r, j) for j in range(computed[r] + new[r])]
    rows = [(r, computed[r] + i) for r in range(len(new)) for i in range(new[r])]
    mask = np.zeros((len(rows), len(keys)), dtype=bool)
    for a, (r, p) in enumerate(rows):
        for b, (s, j) in enumerate(keys):
            mask[a, b] = r == s and j <= p
    return mask


def random_batch(
    rng: np.random.Generator, R: int, block_size: int, max_computed: int, max_new: int, spare: bool
) -> tuple[list[int], list[int], list[list[int]]]:
    """R requests whose block tables take distinct blocks of one pool, in a shuffled order."""
    computed = [int(c) for c in rng.integers(0, max_computed + 1, size=R)]
    new = [int(n) for n in rng.integers(1, max_new + 1, size=R)]
    needed = [
        -(-(c + n) // block_size) + (int(rng.integers(0, 3)) if spare else 0)
        for c, n in zip(computed, new, strict=True)
    ]
    pool = [int(b) for b in rng.permutation(sum(needed) + 5)]
    tables, used = [], 0
    for k in needed:
        tables.append(pool[used : used + k])
        used += k
    return computed, new, tables


# --------------------------------------------------------------------------- comparing answers


def expect_metadata(result: Any, want: list[list[int]], what: str) -> None:
    """A tuple of five 1-D integer arrays, each equal to the expected one."""
    parts = expect_sequence(result, 5, what=f"batch_metadata's return value ({what})", hint="form")
    for name, got, values in zip(NAMES, parts, want, strict=True):
        if not isinstance(got, np.ndarray) or got.dtype.kind not in "iu":
            fail(f"{name} ({what}) should be a numpy array of integers, got {describe(got)}", hint="form")
        expect_array(got, np.array(values, dtype=np.int64), what=f"{name} ({what})", exact=True, hint="form")


def expect_mask(got: Any, want: np.ndarray, what: str) -> None:
    """A bool array of the expected shape, equal entry by entry."""
    if not isinstance(got, np.ndarray) or got.dtype != np.bool_:
        fail(f"the mask ({what}) should be a numpy array of dtype bool, got {describe(got)}", hint="form")
    if got.shape != want.shape:
        fail(f"the mask ({what}) should have shape {want.shape}, got shape {got.shape}", hint="form")
    wrong = np.argwhere(got != want)
    if len(wrong):
        row, col = (int(k) for k in wrong[0])
        extra, missing = int(np.sum(got & ~want)), int(np.sum(want & ~got))
        message = (
            f"the mask ({what}) differs from the expected one: first at row {row}, column {col} "
            f"(expected {bool(want[row, col])}); {len(wrong)} of {want.size} entries differ "
            f"({missing} should be True, {extra} should be False)"
        )
        fail(message, hint=None, expected=want, got=got)


def compare_metadata(student: Student, cases: list[tuple[list[int], list[int], list[list[int]], int, str]]) -> None:
    results = student.batch_metadata.each([(c, n, t, b) for c, n, t, b, _ in cases])
    for (computed, new, tables, block_size, what), result in zip(cases, results, strict=True):
        expect_metadata(result, expected_metadata(computed, new, tables, block_size), what)


def compare_masks(student: Student, cases: list[tuple[list[int], list[int], str]]) -> None:
    results = student.ragged_causal_mask.each([(c, n) for c, n, _ in cases])
    for (computed, new, what), result in zip(cases, results, strict=True):
        expect_mask(result, expected_mask(computed, new), what)


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2, hint="positions")
def worked_example(student: Student) -> None:
    result = student.batch_metadata([5, 9], [3, 1], [[7, 2], [0, 3, 5]], 4)
    want = [[5, 6, 7, 9], [0, 3, 4], [8, 10], [9, 10, 11, 21], [2, 3]]
    expect_metadata(result, want, "the worked example")
    mask = np.zeros((4, 18), dtype=bool)
    mask[0, :6], mask[1, :7], mask[2, :8], mask[3, 8:] = True, True, True, True
    expect_mask(student.ragged_causal_mask([5, 9], [3, 1]), mask, "the worked example")
    expect_mask(
        student.ragged_causal_mask([0], [3]), np.tril(np.ones((3, 3), dtype=bool)), "a fresh prefill of 3 tokens"
    )


@check("Five 1-D int arrays of shapes (T,), (R + 1,), (R,), (T,), (R,), and a bool mask", public=True, hint="form")
def result_form(student: Student) -> None:
    computed, new, tables = [2, 0, 4], [1, 2, 1], [[3], [1, 4], [0, 2]]
    expect_metadata(student.batch_metadata(computed, new, tables, 3), expected_metadata(computed, new, tables, 3),
                    "three requests")  # fmt: skip
    expect_mask(student.ragged_causal_mask(computed, new), expected_mask(computed, new), "three requests")


@check("Decode-only and prefill-only batches", hint="positions")
def decode_and_prefill(student: Student) -> None:
    cases = [
        ([3, 7, 0, 12], [1, 1, 1, 1], [[4], [9, 1], [6], [2, 8, 5, 0]], 4, "four decodes"),
        ([0, 0], [5, 2], [[3, 1], [0]], 4, "two fresh prefills"),
        ([0], [1], [[2]], 1, "one token, block size 1"),
        ([15], [1], [[0, 6, 3, 7]], 4, "a decode that opens a new block"),
        ([16], [1], [[5, 1, 4, 0, 2]], 4, "a decode at the start of a block"),
    ]
    compare_metadata(student, cases)


@check("Chunks that cross block boundaries, tables with spare entries", hint="slots")
def block_boundaries(student: Student) -> None:
    cases = [
        ([6], [7], [[9, 4, 11, 2]], 4, "a chunk over three blocks"),
        ([8, 3], [8, 1], [[1, 6, 0, 3, 7], [2]], 4, "a chunk starting exactly at a block, with a spare block"),
        ([10, 1, 5], [5, 3, 2], [[12, 3, 8, 0, 13], [5, 14], [7, 10, 1]], 3, "block size 3"),
        ([33], [64], [[int(b) for b in np.arange(20)[::-1]]], 16, "a long chunk of 64 tokens, block size 16"),
    ]
    compare_metadata(student, cases)


@check("Random ragged batches, many block sizes", hint="positions")
def random_batches(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, block_size in enumerate([1, 2, 3, 4, 5, 8, 16, 16, 7, 4, 32, 3]):
        R = int(rng.integers(1, 9))
        computed, new, tables = random_batch(rng, R, block_size, 40, 12, spare=n % 2 == 1)
        if n % 3 == 2:  # numpy integers where ints are expected
            computed = [np.int64(c) for c in computed]
            tables = [[np.int32(b) for b in table] for table in tables]
        cases.append((computed, new, tables, block_size, f"random batch {n + 1} of 12, {R} requests"))
    compare_metadata(student, cases)


@check("The mask: a chunk after cached tokens is aligned bottom-right", hint="mask-causal")
def mask_bottom_right(student: Student) -> None:
    cases = [
        ([4], [3], "one chunk after 4 cached tokens"),
        ([0, 5], [4, 4], "a fresh prefill and a chunk with context"),
        ([7], [1], "a single decode"),
        ([2, 0, 9], [1, 3, 2], "three requests, mixed"),
    ]
    compare_masks(student, cases)


@check("The mask: random batches, block-diagonal across requests", hint="mask-requests")
def mask_random(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(10):
        R = int(rng.integers(1, 6))
        computed = [int(c) for c in rng.integers(0, 15, size=R)]
        new = [int(k) for k in rng.integers(1, 7, size=R)]
        cases.append((computed, new, f"random batch {n + 1} of 10, {R} requests"))
    compare_masks(student, cases)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    computed, new, tables = [3, 6], [2, 1], [[4, 0], [2, 5]]
    # The same lists for two calls in one crossing: a call that changes them changes what the
    # second sees.
    calls = [(computed, new, tables, 4), (computed, new, tables, 4)]
    want = expected_metadata([3, 6], [2, 1], [[4, 0], [2, 5]], 4)
    for what, result in zip(["a first call", "a second call with the same lists"],
                            student.batch_metadata.each(calls), strict=True):  # fmt: skip
        expect_metadata(result, want, what)
    masks = student.ragged_causal_mask.each([(computed, new), (computed, new)])
    for what, mask in zip(["a first call", "a second call with the same lists"], masks, strict=True):
        expect_mask(mask, expected_mask([3, 6], [2, 1]), what)
