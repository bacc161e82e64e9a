"""Checks for "Coalescing and Bank Conflicts".

The expected values are computed here by another route than a solution's: every accessed byte of
every active thread is listed one by one, and its sector or word taken from it; the words are then
dealt into a list of banks. A wrong answer is named by the grader, by comparing it with the
exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, expect_integer

T = np.arange(32, dtype=np.int64)

# The statement's patterns: (addrs, access_bytes, label), with 32-byte sectors and 32 banks of 4 bytes.
WORKED = [
    (4 * T, 4, "a row"),
    (128 * T, 4, "a column of a 32 × 32 tile"),
    (132 * T, 4, "a column of a tile padded to 33"),
    (np.full(32, 64, dtype=np.int64), 4, "all threads at one address"),
    (8 * T, 8, "a float64 row"),
    (4 * T + 2, 4, "a misaligned row"),
    (np.where(T % 2 == 0, 4 * T, -1), 4, "every other thread inactive"),
]
WORKED_SECTORS = [4, 32, 32, 1, 8, 5, 4]
WORKED_DEGREES = [1, 32, 1, 1, 2, 2, 1]

# --------------------------------------------------------------------------- independent expected values


def accessed_bytes(addrs: np.ndarray, access_bytes: int) -> list[int]:
    """Every byte every active thread accesses, listed one by one."""
    return [int(a) + i for a in addrs if a >= 0 for i in range(int(access_bytes))]


def expected_sectors(addrs: np.ndarray, access_bytes: int, sector_bytes: int) -> int:
    return len({b // int(sector_bytes) for b in accessed_bytes(addrs, access_bytes)})


def expected_degree(addrs: np.ndarray, access_bytes: int, n_banks: int, word_bytes: int) -> int:
    words = {b // int(word_bytes) for b in accessed_bytes(addrs, access_bytes)}
    banks = [0] * int(n_banks)
    for word in words:
        banks[word % int(n_banks)] += 1
    return max(banks) if words else 0


# --------------------------------------------------------------------------- running cases


Case = tuple[np.ndarray, int, int, int, int]  # addrs, access_bytes, sector_bytes, n_banks, word_bytes


def run_cases(student: Student, cases: list[Case], label: str) -> None:
    """Both functions on every case, each function's calls in one crossing."""
    sectors = student.global_sectors.each([(a, size, sector) for a, size, sector, _, _ in cases])
    degrees = student.bank_conflict_degree.each([(a, size, banks, word) for a, size, _, banks, word in cases])
    for n, (case, got_sectors, got_degree) in enumerate(zip(cases, sectors, degrees, strict=True), start=1):
        addrs, size, sector, banks, word = case
        what = f"{label}, case {n} of {len(cases)}"
        expect_integer(got_sectors, expected_sectors(addrs, size, sector), what=f"the sectors ({what})", hint="form")
        expect_integer(got_degree, expected_degree(addrs, size, banks, word), what=f"the degree ({what})", hint="form")


def float32_warp(addrs: np.ndarray) -> Case:
    return (np.asarray(addrs, dtype=np.int64), 4, 32, 32, 4)


# --------------------------------------------------------------------------- the checks


@check("global_sectors on the statement's patterns", public=True, points=2, hint="form")
def worked_example_sectors(student: Student) -> None:
    results = student.global_sectors.each([(addrs, size, 32) for addrs, size, _ in WORKED])
    for (_, _, label), want, got in zip(WORKED, WORKED_SECTORS, results, strict=True):
        expect_integer(got, want, what=f"the sectors of {label}", hint="form")


@check("bank_conflict_degree on the statement's patterns", public=True, points=2, hint="form")
def worked_example_banks(student: Student) -> None:
    results = student.bank_conflict_degree.each([(addrs, size, 32, 4) for addrs, size, _ in WORKED])
    for (_, _, label), want, got in zip(WORKED, WORKED_DEGREES, results, strict=True):
        expect_integer(got, want, what=f"the degree of {label}", hint="form")


@check("Strided rows: every stride from 1 to 40 words, and other bank and sector sizes", hint="coalescing")
def strided_rows(student: Student) -> None:
    cases = [float32_warp(4 * s * T) for s in range(1, 41)]
    cases += [(4 * s * T, 4, 64, 16, 4) for s in (1, 2, 3, 4, 8, 17)]  # 16 banks, 64-byte sectors
    cases += [(8 * s * T, 8, 128, 32, 8) for s in (1, 2, 3, 16, 33)]  # 8-byte words and accesses
    cases += [(2 * s * T, 2, 32, 32, 4) for s in (1, 2, 3, 64)]  # 2-byte (half) accesses
    run_cases(student, cases, "strided rows")


@check("Accesses wider than a byte straddle sectors and words when misaligned", hint="straddle")
def wide_and_misaligned(student: Student) -> None:
    cases: list[Case] = []
    for offset in (1, 2, 3, 6, 30, 31):
        cases.append(float32_warp(4 * T + offset))
        cases.append((8 * T + offset, 8, 32, 32, 4))
        cases.append((16 * T + offset, 16, 32, 32, 4))
    cases += [
        (T, 1, 32, 32, 4),  # bytes: four threads per word
        (3 * T, 2, 32, 32, 4),
        (128 * T + 30, 4, 32, 32, 4),  # a column whose every access straddles two sectors and two words
        (16 * T, 16, 32, 32, 4),  # float4 loads, aligned
        (256 * T + 120, 16, 128, 32, 4),
        (np.array([31, 63, 95, 127, 200], dtype=np.int64), 2, 32, 8, 4),
    ]
    run_cases(student, cases, "wide or misaligned accesses")


@check("Threads reading the same word are served by one broadcast", hint="broadcast")
def broadcasts(student: Student) -> None:
    cases = [
        float32_warp(4 * (T // 2)),  # pairs of threads on one word
        float32_warp(4 * (T // 8)),  # eight threads per word
        float32_warp(128 * (T % 4)),  # four words of bank 0, eight threads each
        float32_warp(128 * (T // 4)),  # eight words of bank 0, four threads each
        float32_warp(np.where(T < 16, 0, 4 * T)),  # half the warp broadcasts one word
        float32_warp(np.where(T % 2 == 0, 128 * T, 128 * (T - 1))),  # pairs on the words of one bank
        float32_warp(4 * (T % 8) + 1024 * (T // 16)),  # two rows of eight words, repeated
        (np.full(32, 7, dtype=np.int64), 4, 32, 32, 4),  # one misaligned address: two words, broadcast
        (8 * (T // 4), 8, 32, 32, 4),  # float64, four threads per pair of words
        (np.full(64, 4096, dtype=np.int64), 4, 32, 32, 4),
    ]
    run_cases(student, cases, "broadcasts")


@check("Inactive threads (negative addresses) access nothing", hint="inactive")
def inactive_threads(student: Student) -> None:
    cases = [
        float32_warp(np.full(32, -1)),  # the whole warp inactive
        float32_warp(np.where(T == 5, 4 * T, -1)),  # one active thread
        float32_warp(np.where(T < 16, 4 * T, -4)),
        float32_warp(np.where(T % 3 == 0, 128 * T, -1000)),
        float32_warp(np.where(T % 4 == 1, 4 * T, -(2**40))),
        (np.where(T % 2 == 1, 8 * T, -1), 8, 32, 32, 4),
        (np.array([-1, -2, -3], dtype=np.int64), 16, 32, 32, 4),
        (np.array([-1, 0], dtype=np.int64), 4, 32, 32, 4),
    ]
    run_cases(student, cases, "inactive threads")


@check("Warps of other lengths, large addresses, numpy integer sizes", hint="form")
def warp_shapes(student: Student) -> None:
    t64 = np.arange(64, dtype=np.int64)
    base = np.int64(2**40 + 12)
    cases: list[Case] = [
        (np.array([0], dtype=np.int64), 4, 32, 32, 4),  # one thread
        (np.array([100], dtype=np.int64), 64, 32, 32, 4),  # one thread, a wide access
        (np.array([0, 33, 66, 99, 132, 165, 198], dtype=np.int64), 4, 32, 32, 4),  # seven threads
        (4 * t64, 4, 32, 32, 4),  # a 64-wide warp
        (256 * t64, 4, 32, 32, 4),
        (260 * t64, 4, 32, 32, 4),
        (base + 4 * T, 4, 32, 32, 4),  # far beyond 2^32
        (base + 512 * T, 8, 32, 32, 4),
        (4 * T, np.int64(4), np.int64(32), np.int64(32), np.int64(4)),
        (12 * T, 12, 32, 16, 4),  # a 12-byte struct per thread
    ]
    run_cases(student, cases, "other warps")


@check("Random gathers and masks", hint="coalescing")
def random_gathers(student: Student, rng: np.random.Generator) -> None:
    cases: list[Case] = []
    for _ in range(40):
        n = int(rng.choice([8, 16, 32, 32, 32, 64]))
        size = int(rng.choice([1, 2, 4, 4, 8, 16]))
        span = int(rng.choice([64, 256, 1024, 8192]))
        addrs = rng.integers(0, span, size=n).astype(np.int64)
        if rng.random() < 0.5:
            addrs -= addrs % size  # aligned
        addrs[rng.random(n) < 0.25] = -1
        sector, banks, word = int(rng.choice([32, 64, 128])), int(rng.choice([8, 16, 32])), int(rng.choice([4, 8]))
        cases.append((addrs, size, sector, banks, word))
    run_cases(student, cases, "random gathers")


@check("addrs is left unchanged", hint="no-mutation")
def addrs_unchanged(student: Student) -> None:
    whole = np.concatenate([4 * T + 1026, np.where(T % 2 == 1, 128 * T, -1)])
    # Views of one array in one crossing: a call that changes its view changes what the later calls see.
    parts: list[Any] = [whole[32:], whole[32:40], whole[:32], whole]
    labels = ["the second half", "the start of the second half", "the first half", "the whole"]
    sectors = student.global_sectors.each([(p, 4, 32) for p in parts])
    degrees = student.bank_conflict_degree.each([(p, 4, 32, 4) for p in parts])
    for part, label, got_s, got_d in zip(parts, labels, sectors, degrees, strict=True):
        expect_integer(got_s, expected_sectors(part, 4, 32), what=f"the sectors ({label})", hint="form")
        expect_integer(got_d, expected_degree(part, 4, 32, 4), what=f"the degree ({label})", hint="form")
