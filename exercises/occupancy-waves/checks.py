"""Checks for "Occupancy and Waves".

The expected values are computed here by another route than a solution's: blocks are added to an SM
one at a time while every resource still holds them all (the block count is the last that fits, the
limiter the first resource, in order, that one more block would overflow), and the waves by counting
tile origins and filling waves with exact fractions. A wrong answer is named by the grader, by
comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from grader.checks import (
    Student,
    check,
    describe,
    expect_float,
    expect_integer,
    expect_sequence,
    fail,
    values_shown,
)

ORDER = ("blocks", "threads", "registers", "shared_memory")
KEYS = ("warp_size", "max_threads", "max_blocks", "regs", "reg_unit", "smem", "smem_unit")


def make_sm(*values: int) -> dict[str, int]:
    return dict(zip(KEYS, values, strict=True))


H100 = make_sm(32, 2048, 32, 65536, 256, 233472, 128)
A100 = make_sm(32, 2048, 32, 65536, 256, 167936, 128)
ADA = make_sm(32, 1536, 24, 65536, 256, 102400, 128)
WIDE = make_sm(64, 2560, 40, 131072, 512, 65536, 256)  # 64-wide warps
SMALL = make_sm(32, 1024, 16, 32768, 96, 49152, 512)  # a register unit that is not a multiple of the warp
TINY = make_sm(32, 2048, 32, 1000, 64, 300, 128)  # so few registers and bytes that one or two per block bind

# --------------------------------------------------------------------------- independent expected values


def round_up(value: int, unit: int) -> int:
    return math.ceil(Fraction(int(value), int(unit))) * int(unit)


def expected_occupancy(threads_per_block: Any, regs_per_thread: Any, smem_per_block: Any,
                       sm: dict[str, int]) -> tuple[int, float, str]:  # fmt: skip
    """Add blocks one at a time while all of them fit; the limiter is the first resource one more would overflow."""
    warp_size = sm["warp_size"]
    slots = round_up(threads_per_block, warp_size)  # thread slots of one block: whole warps
    warps = slots // warp_size
    # What one block takes of each resource, and what the SM has of it (a resource unused takes 0).
    need = {
        "blocks": (1, sm["max_blocks"]),
        "threads": (slots, sm["max_threads"]),
        "registers": (warps * round_up(int(regs_per_thread) * warp_size, sm["reg_unit"]), sm["regs"]),
        "shared_memory": (round_up(smem_per_block, sm["smem_unit"]), sm["smem"]),
    }
    blocks = 0
    for count in range(1, sm["max_blocks"] + 1):
        if any(count * per_block > total for per_block, total in need.values()):
            break
        blocks = count
    limiter = next(name for name in ORDER if (blocks + 1) * need[name][0] > need[name][1])
    return blocks, float(Fraction(blocks * slots, sm["max_threads"])), limiter


def expected_waves(m: int, n: int, tile_m: int, tile_n: int, n_sms: int, blocks_per_sm: int) -> tuple[int, int, float]:
    """Tile origins counted; waves filled until every tile has a slot; useful outputs over launched ones."""
    n_tiles = len(range(0, m, tile_m)) * len(range(0, n, tile_n))
    slots = n_sms * blocks_per_sm
    n_waves = math.ceil(Fraction(n_tiles, slots))
    return n_tiles, n_waves, float(Fraction(m * n, n_waves * slots * tile_m * tile_n))


# --------------------------------------------------------------------------- comparing answers


def expect_occupancy(got: Any, want: tuple[int, float, str], what: str) -> None:
    blocks, occupancy, limiter = expect_sequence(got, 3, what=f"the result ({what})", hint="occupancy-form")
    expect_integer(blocks, want[0], what=f"blocks_per_sm ({what})", hint="occupancy-form")
    if not isinstance(limiter, str) or limiter not in ORDER:
        kind = "another str" if isinstance(limiter, str) else describe(limiter)
        fail(f"limiter ({what}) should be one of {', '.join(map(repr, ORDER))}, got {kind}", hint="occupancy-form")
    expect_float(occupancy, want[1], what=f"occupancy ({what})", rtol=1e-9, atol=0.0, hint="occupancy-form")
    if limiter != want[2]:
        shown = f"expected {want[2]!r}, got {limiter!r}" if values_shown() else "not the expected name"
        # A wrong name: the grader names the mistake from the answers, no hint is guessed here.
        fail(f"limiter ({what}): {shown}", hint=None, expected=want[2], got=limiter)


def expect_waves(got: Any, want: tuple[int, int, float], what: str) -> None:
    n_tiles, n_waves, efficiency = expect_sequence(got, 3, what=f"the result ({what})", hint="waves-form")
    expect_integer(n_tiles, want[0], what=f"n_tiles ({what})", hint="waves-form")
    expect_integer(n_waves, want[1], what=f"n_waves ({what})", hint="waves-form")
    expect_float(efficiency, want[2], what=f"efficiency ({what})", rtol=1e-9, atol=0.0, hint="waves-form")


def run_occupancy(student: Student, cases: list[tuple[tuple[Any, ...], str]]) -> None:
    results = student.occupancy.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        expect_occupancy(got, expected_occupancy(*args), what)


def run_waves(student: Student, cases: list[tuple[tuple[Any, ...], str]]) -> None:
    results = student.gemm_waves.each([args for args, _ in cases])
    for (args, what), got in zip(cases, results, strict=True):
        expect_waves(got, expected_waves(*(int(a) for a in args)), what)


def numbered(args: list[tuple[Any, ...]], label: str) -> list[tuple[tuple[Any, ...], str]]:
    return [(a, f"{label}, case {i} of {len(args)}") for i, a in enumerate(args, start=1)]


# --------------------------------------------------------------------------- occupancy


@check("occupancy on the statement's examples (an H100-like SM)", public=True, points=2, hint="occupancy-form")
def worked_example_occupancy(student: Student) -> None:
    sm = dict(H100)
    calls = [(256, 64, 49152, sm), (256, 65, 49152, sm), (256, 33, 0, sm), (100, 32, 0, sm)]
    got = student.occupancy.each(calls)
    expect_occupancy(got[0], (4, 0.5, "registers"), "256 threads, 64 registers, 48 KiB")
    expect_occupancy(got[1], (3, 0.375, "registers"), "256 threads, 65 registers, 48 KiB")
    expect_occupancy(got[2], (6, 0.75, "registers"), "256 threads, 33 registers, no shared memory")
    expect_occupancy(got[3], (16, 1.0, "threads"), "100 threads, 32 registers, no shared memory")


@check("occupancy: blocks take whole warps", hint="warps")
def warp_rounding(student: Student) -> None:
    args = [(t, 0, 0, H100) for t in (1, 33, 100, 129, 200, 1000, 1023, 2047)]
    args += [(t, 32, 1024, sm) for t in (1, 65, 100, 300, 1000) for sm in (WIDE, ADA)]
    run_occupancy(student, numbered(args, "threads not a multiple of the warp size"))


@check("occupancy: registers are given per warp in units of reg_unit", hint="registers")
def register_units(student: Student) -> None:
    args = [(256, r, 0, H100) for r in (1, 24, 33, 40, 65, 100, 128, 168, 255)]
    args += [(96, 33, 0, H100), (96, 57, 0, H100), (320, 19, 0, A100)]
    args += [(t, r, 0, SMALL) for t, r in ((64, 5), (64, 7), (128, 10), (96, 14), (32, 100))]
    args += [(t, r, 4096, WIDE) for t, r in ((128, 9), (192, 30), (256, 17))]
    args += [(256, 1, 0, TINY), (256, 2, 0, TINY), (64, 3, 0, TINY)]  # one, two or three registers bind
    run_occupancy(student, numbered(args, "register counts to round"))


@check("occupancy: shared memory is given per block in units of smem_unit", hint="shared-memory")
def shared_memory_units(student: Student) -> None:
    args = [(32, 0, s, H100) for s in (1, 100, 1000, 20000, 49153, 77825, 116737, 233472)]
    args += [(64, 16, s, sm) for s in (513, 4097, 12289, 16385) for sm in (SMALL, WIDE)]
    args += [(32, 0, s, TINY) for s in (1, 2, 3)]  # one, two or three bytes bind
    run_occupancy(student, numbered(args, "shared memory sizes to round"))


@check("occupancy: on a tie the first limit in order is the limiter", hint="limiter")
def ties(student: Student) -> None:
    all_four = make_sm(32, 2048, 8, 65536, 256, 233472, 128)
    args = [
        (256, 32, 29184, all_four),  # all four limits allow 8 blocks
        (256, 32, 29184, H100),  # threads, registers and shared memory allow 8
        (512, 32, 58368, H100),  # threads, registers and shared memory allow 4
        (64, 0, 0, H100),  # blocks and threads allow 32
        (64, 32, 7296, H100),  # all four allow 32
        (128, 64, 29184, H100),  # registers and shared memory allow 8
        (768, 40, 0, ADA),  # threads and registers allow 2
        (96, 0, 6400, ADA),  # threads and shared memory allow 16
        (256, 64, 16384, A100),  # no tie: registers allow 4, threads 8, shared memory 10
    ]
    run_occupancy(student, numbered(args, "limits that tie"))


@check("occupancy: a resource the block does not use sets no limit", hint="zero-resource")
def unused_resources(student: Student) -> None:
    args = [(128, 0, 0, H100), (256, 0, 1, H100), (32, 1, 0, H100), (1024, 0, 0, ADA), (64, 0, 65536, WIDE),
            (96, 40, 0, SMALL), (1, 0, 0, SMALL)]  # fmt: skip
    run_occupancy(student, numbered(args, "no registers or no shared memory"))


@check("occupancy: a block too large for the SM gives 0 blocks", hint="occupancy-form")
def nothing_fits(student: Student) -> None:
    args = [(1025, 0, 0, SMALL), (2049, 1, 1, H100), (1024, 255, 0, H100), (32, 0, 233473, H100),
            (256, 0, 102401, ADA), (64, 600, 0, SMALL)]  # fmt: skip
    run_occupancy(student, numbered(args, "a block that does not fit"))


@check("occupancy on random kernels and SMs", hint="occupancy-form")
def random_kernels(student: Student, rng: np.random.Generator) -> None:
    args: list[tuple[Any, ...]] = []
    for _ in range(30):
        warp_size = int(rng.choice([16, 32, 64]))
        sm = make_sm(warp_size, warp_size * int(rng.integers(8, 80)), int(rng.integers(1, 40)),
                     int(rng.integers(8192, 131073)), int(rng.choice([64, 128, 256, 96, 512])),
                     int(rng.integers(16384, 262145)), int(rng.choice([32, 128, 256, 1024])))  # fmt: skip
        threads = int(rng.integers(1, 1025))
        regs = int(rng.choice([0, int(rng.integers(1, 256))]))
        smem = int(rng.choice([0, int(rng.integers(1, 100_000))]))
        args.append((threads, regs, smem, sm))
    args.append((np.int64(100), np.int64(33), np.int64(4097), H100))
    args.append((np.int32(300), np.int64(0), np.int64(50000), A100))
    run_occupancy(student, numbered(args, "random kernel"))


@check("occupancy leaves sm unchanged", hint="no-mutation")
def sm_unchanged(student: Student) -> None:
    sm = dict(H100)
    # One dict for every call of one crossing: a call that changes it changes what the later ones see.
    args = [(256, 64, 49152, sm), (100, 33, 4097, sm), (1024, 0, 0, sm), (64, 40, 1000, sm), (256, 64, 49152, sm)]
    run_occupancy(student, numbered(args, "calls sharing one sm dict"))


# --------------------------------------------------------------------------- waves


@check("gemm_waves on the statement's examples", public=True, points=2, hint="waves-form")
def worked_example_waves(student: Student) -> None:
    small, large = student.gemm_waves.each([(2048, 2048, 128, 128, 132, 1), (2304, 2304, 128, 128, 132, 1)])
    expect_waves(small, (256, 2, 2048 * 2048 / (2 * 132 * 128 * 128)), "a 2048 × 2048 output")
    expect_waves(large, (324, 3, 2304 * 2304 / (3 * 132 * 128 * 128)), "a 2304 × 2304 output")


@check("gemm_waves: partial tiles, partial waves, several blocks per SM", hint="waves-form")
def wave_shapes(student: Student) -> None:
    args: list[tuple[Any, ...]] = [
        (4096, 4096, 128, 128, 132, 2),  # 1024 tiles in 264 slots
        (4096, 4096, 128, 256, 132, 1),  # exactly 4 waves minus 16
        (1000, 3000, 128, 128, 108, 1),  # partial tiles both ways
        (1000, 3000, 128, 128, 108, 3),
        (528, 512, 128, 128, 132, 1),  # 20 tiles, one partial wave
        (128, 128, 128, 128, 132, 1),  # a single tile
        (100, 50, 128, 64, 10, 4),  # tiles larger than the matrix
        (8448, 2048, 128, 128, 132, 1),  # exactly 8 full waves
        (8576, 2048, 128, 128, 132, 1),  # 8 waves and 16 tiles
        (4224, 4224, 64, 64, 33, 4),  # exact multiples
        (4225, 4224, 64, 64, 33, 4),  # one row more
        (3000, 700, 96, 160, 20, 7),  # 32 · 5 tiles in 140 slots
        (777, 555, 64, 32, 46, 2),
        (np.int64(2304), np.int64(2304), np.int64(128), np.int64(128), np.int64(132), np.int64(2)),
    ]
    run_waves(student, numbered(args, "a tiled output"))


@check("gemm_waves on random shapes", hint="waves-form")
def random_waves(student: Student, rng: np.random.Generator) -> None:
    args: list[tuple[Any, ...]] = []
    for _ in range(30):
        tile_m, tile_n = (int(rng.choice([16, 32, 64, 128, 256])) for _ in range(2))
        args.append((int(rng.integers(1, 9000)), int(rng.integers(1, 9000)), tile_m, tile_n,
                     int(rng.integers(1, 150)), int(rng.integers(1, 5))))  # fmt: skip
    run_waves(student, numbered(args, "random shape"))
