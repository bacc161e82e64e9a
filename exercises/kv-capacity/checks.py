"""Checks for "How Many Requests Fit".

The expected values are computed here by another route than a solution's: kv_blocks as two nested
floor divisions (the tokens that fit, then the blocks), max_seqs by trying every prefix of the
requests with exact fractions, and the contiguous count by placing requests one at a time. A wrong
answer is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_integer, expect_sequence, fail

# --------------------------------------------------------------------------- independent reference


def expected_blocks(free_bytes: int, n_layers: int, n_kv_heads: int, head_dim: int, dtype_bytes: int,
                    block_size: int) -> int:  # fmt: skip
    """Whole tokens first (a token's K and V in every layer and head), then whole blocks of them."""
    tokens = free_bytes // (2 * n_layers * n_kv_heads * head_dim * dtype_bytes)
    return tokens // block_size


def expected_seqs(num_blocks: int, block_size: int, seq_lens: list[int], max_len: int) -> tuple[int, int]:
    """Largest prefix whose blocks fit (every prefix tried), and requests placed one by one in a flat buffer."""
    need = [math.ceil(Fraction(int(n), int(block_size))) for n in seq_lens]
    paged = max(k for k in range(len(need) + 1) if sum(need[:k]) <= num_blocks)
    slots = int(num_blocks) * int(block_size)
    contiguous = 0
    while contiguous < len(seq_lens) and (contiguous + 1) * int(max_len) <= slots:
        contiguous += 1
    return paged, contiguous


# --------------------------------------------------------------------------- comparing answers


def compare_seqs(got: Any, want: tuple[int, int], what: str) -> None:
    paged, contiguous = expect_sequence(got, 2, what=f"the result ({what})", hint="form")
    expect_integer(paged, want[0], what=f"paged ({what})", hint="form")
    expect_integer(contiguous, want[1], what=f"contiguous ({what})", hint="form")


def run_seqs(student: Student, cases: list[tuple[tuple[Any, ...], str]]) -> None:
    """All the cases in one crossing, each compared with its expected pair."""
    results = student.max_seqs.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        compare_seqs(got, expected_seqs(*args), what)


def run_blocks(student: Student, cases: list[tuple[tuple[int, ...], str]]) -> None:
    results = student.kv_blocks.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        expect_integer(got, expected_blocks(*args), what=f"the number of blocks ({what})", hint="integers")


# --------------------------------------------------------------------------- the checks


@check("kv_blocks on the statement's examples", public=True, hint="block-formula")
def worked_example_blocks(student: Student) -> None:
    cases = [
        ((40 * 2**30, 32, 8, 128, 2, 16), 20480, "8 KV heads"),
        ((40 * 2**30, 32, 32, 128, 2, 16), 5120, "32 KV heads"),
    ]
    for (_, want, name), got in zip(cases, student.kv_blocks.each([args for args, *_ in cases]), strict=True):
        expect_integer(got, want, what=f"kv_blocks, the statement's example with {name}", hint="integers")


@check("max_seqs on the statement's example returns the tuple (4, 2)", public=True, hint="form")
def worked_example_seqs(student: Student) -> None:
    got = student.max_seqs(7, 4, [5, 3, 9, 2, 4], 12)
    if not isinstance(got, tuple):
        fail(f"max_seqs should return a tuple (paged, contiguous), got {describe(got)}", hint="form")
    compare_seqs(got, (4, 2), "the statement's example")


@check("kv_blocks for many model shapes, at and around whole blocks", hint="block-formula")
def kv_blocks_shapes(student: Student, rng: np.random.Generator) -> None:
    cases = []
    shapes = [(1, 1, 1, 1, 1), (2, 1, 3, 1, 5), (24, 4, 64, 2, 32), (80, 8, 128, 2, 16), (61, 3, 96, 1, 7),
              (40, 40, 128, 4, 1), (9, 5, 80, 2, 256)]  # fmt: skip
    for n, shape in enumerate(shapes, start=1):
        block = 2 * math.prod(shape)
        k = int(rng.integers(1, 5000))
        extra = int(rng.integers(1, block)) if block > 1 else 0
        for free, where in ((0, "no memory"), (block - 1, "one byte short of a block"), (block, "exactly one block"),
                            (k * block, "a whole number of blocks"), (k * block - 1, "one byte short of whole blocks"),
                            (k * block + extra, "whole blocks and a part")):  # fmt: skip
            cases.append(((free, *shape), f"model shape {n} of {len(shapes)}, {where}"))
    run_blocks(student, cases)


@check("kv_blocks is exact for huge memories (beyond 2^53 and 2^63)", hint="integers")
def kv_blocks_huge(student: Student) -> None:
    block = 2 * 32 * 8 * 128 * 2 * 16  # 2 MiB
    cases = [
        ((2**61 - 1, 32, 8, 128, 2, 16), "one byte short of whole blocks, where a float quotient rounds up"),
        ((2**60 + 3 * block - 1, 32, 8, 128, 2, 16), "one byte short of whole blocks, past exact floats"),
        ((2**63 + 5, 32, 8, 128, 2, 16), "just beyond what int64 can count"),
        ((10**30 + 12345, 80, 8, 128, 2, 16), "far beyond what int64 can count"),
        ((3**70, 61, 3, 96, 1, 7), "far beyond what int64 can count, odd sizes"),
    ]
    run_blocks(student, cases)


@check("max_seqs: a partly filled last block is a whole block", hint="whole-blocks")
def partial_blocks(student: Student) -> None:
    cases = [
        ((6, 4, [4, 8, 4, 4], 4), "lengths that are multiples of block_size"),
        ((5, 4, [1, 1, 1, 1, 1, 1, 1], 1), "one-token requests"),
        ((9, 8, [9, 17, 7, 16, 1], 16), "lengths just past a multiple"),
        ((10, 5, [3, 7, 11, 2, 6, 4], 10), "lengths not multiples of block_size"),
        ((4, 16, [15, 17, 2], 32), "requests shorter than a block"),
        ((12, 3, [5, 5, 5, 5, 5, 5, 5], 6), "tokens that would fit if pooled"),
    ]
    run_seqs(student, cases)


@check("max_seqs: requests fit in the order given, and the first that does not fit ends the count", hint="in-order")
def in_order(student: Student) -> None:
    cases = [
        ((10, 4, [8, 40, 2, 2, 2], 8), "a long request followed by short ones"),
        ((6, 2, [9, 1, 1, 1, 1, 1], 4), "the first request does not fit"),
        ((7, 3, [3, 12, 4, 1, 1, 5, 2], 3), "lengths out of order"),
        ((9, 1, [4, 3, 3, 1, 1], 2), "block_size 1"),
    ]
    run_seqs(student, cases)


@check("max_seqs: requests that use every block exactly fit", hint="whole-blocks")
def exact_fit(student: Student) -> None:
    cases = [
        ((7, 4, [5, 3, 9, 2], 12), "four requests filling all blocks"),
        ((3, 5, [15], 15), "one request filling all blocks"),
        ((6, 6, [6, 12, 18, 1], 36), "multiples of block_size filling all blocks"),
        ((8, 4, [16, 16, 1], 32), "two requests filling all blocks, a third one token long"),
    ]
    run_seqs(student, cases)


@check("max_seqs: the contiguous count, capped by the number of requests", hint="contiguous")
def contiguous_count(student: Student) -> None:
    cases = [
        ((100, 16, [5, 9, 3], 64), "room for more requests than there are"),
        ((10, 4, [2, 2, 2, 2, 2, 2], 6), "max_len not a multiple of block_size"),
        ((3, 16, [1, 1], 50), "max_len beyond the whole buffer"),
        ((7, 5, [1, 1, 1, 1, 1, 1, 1, 1, 1], 7), "slots not a multiple of max_len"),
        ((12, 4, [3, 3, 3, 3, 3, 3, 3, 3], 16), "max_len a multiple of block_size"),
    ]
    run_seqs(student, cases)


@check("max_seqs: no requests, no blocks, lengths up to 2^31, numpy integers", hint="form")
def edges(student: Student) -> None:
    big = 2**31 - 1
    cases = [
        ((7, 4, [], 12), "no requests"),
        ((0, 4, [1, 2], 1), "no blocks"),
        ((0, 16, [], 1), "no requests and no blocks"),
        ((2**31 - 1, 2**31 - 1, [big, big, big], big), "the largest sizes"),
        ((2**31 - 1, 16, [big, 2**30, 5], 2**30), "lengths near the largest"),
        ((np.int64(9), np.int64(4), [np.int64(5), np.int32(7), 3, np.int64(12)], np.int64(8)), "numpy integers"),
    ]
    run_seqs(student, cases)


@check("max_seqs on random batches", hint="whole-blocks")
def random_batches(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(1, 41):
        block_size = int(rng.choice([1, 2, 3, 4, 8, 16, 32]))
        count = int(rng.integers(0, 25))
        lens = [int(x) for x in rng.integers(1, 6 * block_size + 2, size=count)]
        need = sum((x + block_size - 1) // block_size for x in lens)
        num_blocks = int(rng.integers(0, need + 3))
        max_len = int(rng.integers(1, 8 * block_size + 3))
        cases.append(((num_blocks, block_size, lens, max_len), f"random batch {n} of 40"))
    run_seqs(student, cases)


@check("seq_lens is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    lens = [6, 2, 9, 1, 4, 3, 7]
    # The same list in both calls of one crossing: a call that changes it changes what the second one sees.
    first, second = student.max_seqs.each([(4, 4, lens, 8), (20, 4, lens, 8)])
    compare_seqs(first, expected_seqs(4, 4, lens, 8), "first call")
    compare_seqs(second, expected_seqs(20, 4, lens, 8), "second call, on the same list")
