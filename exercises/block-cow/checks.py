"""Hidden checks for "Copy-on-Write KV Blocks".

Expected results come from a second simulator written here. It keeps no reference counts: a
block's count is recomputed, whenever it is needed, as the number of living tables that hold it,
and a sequence's last block is full when its table holds exactly n / B blocks' worth of tokens.
The free list is a deque. A few cases are also worked out by hand. A wrong answer is named by the
grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_sequence, fail, values_shown

Op = tuple
State = tuple[dict[int, list[int]], list[int], list[tuple[int, int]]]


# --------------------------------------------------------------------------- independent simulator


def holders(tables: dict[int, list[int]], block: int) -> int:
    return sum(table.count(block) for table in tables.values())


def simulate(num_blocks: int, block_size: int, ops: list[Op]) -> tuple[State, int]:
    """The final (tables, free, copies), and the most blocks held at once along the way."""
    free = deque(range(num_blocks))
    tables: dict[int, list[int]] = {}
    tokens: dict[int, int] = {}
    copies: list[tuple[int, int]] = []
    peak = 0
    for op in ops:
        if op[0] == "alloc":
            _, s, n = op
            need = (n + block_size - 1) // block_size
            tables[s] = [free.popleft() for _ in range(need)]
            tokens[s] = n
        elif op[0] == "fork":
            _, src, dst = op
            tables[dst] = tables[src][:]
            tokens[dst] = tokens[src]
        elif op[0] == "append":
            s = op[1]
            table = tables[s]
            if tokens[s] == len(table) * block_size:
                table.append(free.popleft())
            elif holders(tables, table[-1]) >= 2:
                fresh = free.popleft()
                copies.append((table[-1], fresh))
                table[-1] = fresh
            tokens[s] += 1
        else:
            s = op[1]
            gone = tables.pop(s)
            del tokens[s]
            free.extend(b for b in gone if holders(tables, b) == 0)
        peak = max(peak, num_blocks - len(free))
    return (tables, list(free), copies), peak


def expected_blocks(num_blocks: int, block_size: int, ops: list[Op]) -> State:
    return simulate(num_blocks, block_size, ops)[0]


def peak_in_use(block_size: int, ops: list[Op]) -> int:
    """The most blocks ever held at once: a pool of this many never runs out (freed blocks cycle back)."""
    return simulate(10_000, block_size, ops)[1]


def random_trace(rng: np.random.Generator, block_size: int, n_ops: int, max_alive: int = 5) -> list[Op]:
    """A valid trace: many appends, forks of partly filled and of full sequences, frees, ids used again."""
    ops: list[Op] = []
    alive: dict[int, int] = {}
    next_id = 0
    dead: list[int] = []
    while len(ops) < n_ops:
        roll = rng.random()
        if not alive or (roll < 0.12 and len(alive) < max_alive):
            if dead and rng.random() < 0.5:
                s = dead.pop(int(rng.integers(0, len(dead))))
            else:
                s, next_id = next_id, next_id + 1
            n = int(rng.integers(1, 3 * block_size + 2))
            ops.append(("alloc", s, n))
            alive[s] = n
        elif roll < 0.32 and len(alive) < max_alive:
            src = list(alive)[int(rng.integers(0, len(alive)))]
            if dead and rng.random() < 0.5:
                dst = dead.pop(int(rng.integers(0, len(dead))))
            else:
                dst, next_id = next_id, next_id + 1
            ops.append(("fork", src, dst))
            alive[dst] = alive[src]
        elif roll < 0.42 and len(alive) > 1:
            s = list(alive)[int(rng.integers(0, len(alive)))]
            ops.append(("free", s))
            del alive[s]
            dead.append(s)
        else:
            s = list(alive)[int(rng.integers(0, len(alive)))]
            ops.append(("append", s))
            alive[s] += 1
    return ops


# --------------------------------------------------------------------------- comparing answers


def is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def expect_form(result: Any, what: str) -> tuple[Any, Any, Any]:
    """(tables, free, copies): a dict {int: list of ints}, a list of ints, a list of (int, int) tuples."""
    tables, free, copies = expect_sequence(result, 3, what=f"the return value ({what})", hint="form")
    if not isinstance(tables, dict):
        fail(f"tables ({what}) should be a dict {{sequence id: block table}}, got {describe(tables)}", hint="form")
    for key, table in tables.items():
        if not is_int(key):
            fail(f"tables ({what}) should have int keys (the sequence ids), got {describe(key)}", hint="form")
        if type(table) is not list or not all(is_int(b) for b in table):
            fail(f"each block table ({what}) should be a list of ints, got {describe(table)}", hint="form")
    if type(free) is not list or not all(is_int(b) for b in free):
        fail(f"free ({what}) should be a list of ints, got {describe(free)}", hint="form")
    if type(copies) is not list:
        fail(f"copies ({what}) should be a list, got {describe(copies)}", hint="form")
    for pair in copies:
        if type(pair) is not tuple or len(pair) != 2 or not all(is_int(b) for b in pair):
            fail(f"each copy ({what}) should be a tuple (old, new) of two ints, got {describe(pair)}", hint="form")
    return tables, free, copies


def first_difference(got: list[Any], want: list[Any]) -> str:
    for i, (a, b) in enumerate(zip(got, want, strict=False)):
        if a != b:
            return f"first at position {i}"
    return "it is shorter than expected" if len(got) < len(want) else "it is longer than expected"


def expect_state(result: Any, want: State, what: str) -> None:
    tables, free, copies = expect_form(result, what)
    want_tables, want_free, want_copies = want
    shown = values_shown()
    got_tables = {int(k): [int(b) for b in v] for k, v in tables.items()}
    if set(got_tables) != set(want_tables):
        extra = (
            "holds a sequence that is no longer alive" if set(got_tables) - set(want_tables) else "misses a sequence"
        )
        fail(f"tables ({what}) {extra}", hint=None, expected=want_tables, got=tables)
    for number, s in enumerate(sorted(want_tables), start=1):
        if got_tables[s] != want_tables[s]:
            who = f"sequence {s}" if shown else f"living sequence number {number} (by id)"
            fail(
                f"tables ({what}): the block table of {who} differs, {first_difference(got_tables[s], want_tables[s])}",
                hint=None,
                expected=want_tables,
                got=tables,
            )
    got_free = [int(b) for b in free]
    if got_free != want_free:
        fail(
            f"free ({what}) differs from the expected free list, {first_difference(got_free, want_free)}",
            hint=None,
            expected=want_free,
            got=free,
        )
    got_copies = [(int(a), int(b)) for a, b in copies]
    if got_copies != want_copies:
        fail(
            f"copies ({what}) differs from the expected copies, {first_difference(got_copies, want_copies)}",
            hint=None,
            expected=want_copies,
            got=copies,
        )


def play(student: Student, cases: list[tuple[int, int, list[Op], str]]) -> None:
    """Every case in one crossing, each compared with the independent simulator."""
    results = student.run_blocks.each([(n, b, ops) for n, b, ops, _ in cases])
    for (n, b, ops, what), result in zip(cases, results, strict=True):
        expect_state(result, expected_blocks(n, b, ops), what)


def trace(text: str) -> list[Op]:
    """ "alloc 0 5; fork 0 1; append 1" -> [("alloc", 0, 5), ("fork", 0, 1), ("append", 1)]"""
    return [(kind, *map(int, args)) for kind, *args in (part.split() for part in text.split(";"))]


WORKED = [("alloc", 0, 6), ("fork", 0, 1), ("append", 1), ("append", 0), ("append", 0), ("append", 0), ("free", 0)]


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2, hint="cow")
def worked_example(student: Student) -> None:
    boundary = trace("alloc 0 4; fork 0 1; append 1; append 0")
    first, second = student.run_blocks.each([(6, 4, WORKED), (6, 2, boundary)])
    expect_state(first, ({1: [0, 2]}, [4, 5, 1, 3], [(1, 2)]), "the first example")
    expect_state(second, ({0: [0, 1, 3], 1: [0, 1, 2]}, [4, 5], []), "the fork at a block boundary")


@check("tables is a dict of lists, free a list, copies a list of (old, new) tuples", public=True, hint="form")
def result_form(student: Student) -> None:
    ops = trace("alloc 3 3; fork 3 8; append 8; alloc 5 1")
    expect_state(student.run_blocks(5, 4, ops), ({3: [0], 8: [1], 5: [2]}, [3, 4], [(0, 1)]), "a short trace")


@check("A shared, partly filled last block is copied before a write", hint="cow")
def copy_on_write(student: Student) -> None:
    play(
        student,
        [
            (8, 4, trace("alloc 0 5; fork 0 1; append 0"), "the parent writes after a fork"),
            (8, 4, trace("alloc 0 5; fork 0 1; append 0; append 1"), "both write after a fork"),
            (
                9,
                4,
                trace("alloc 0 2; fork 0 1; fork 1 2; append 2; append 0; append 1"),
                "a block shared three ways, written by each",
            ),
            (
                8,
                3,
                trace("alloc 0 4; fork 0 1; append 1; append 1; append 1"),
                "appends after a copy fill the copy in place",
            ),
            (10, 2, trace("alloc 0 3; fork 0 1; fork 0 2; append 1; append 2; append 0"), "two forks of one parent"),
        ],
    )


@check("A full last block is never copied, shared or not", hint="full-block")
def full_block_no_copy(student: Student) -> None:
    play(
        student,
        [
            (8, 4, trace("alloc 0 8; fork 0 1; append 1; append 0; append 1"), "a fork of two full blocks"),
            (8, 1, trace("alloc 0 2; fork 0 1; append 0; append 1; append 1"), "blocks of one token"),
            (
                9,
                3,
                trace("alloc 0 2; fork 0 1; append 1; append 1; append 0; append 0"),
                "a copy that fills up and then grows",
            ),
        ],
    )


@check("A copied block loses the reference of the sequence that copied it", hint="refcount")
def copy_releases_old(student: Student) -> None:
    play(
        student,
        [
            (6, 4, trace("alloc 0 3; fork 0 1; append 1; free 0"), "the parent freed after its child copied"),
            (6, 4, trace("alloc 0 3; fork 0 1; append 0; free 1; append 0"), "the child freed after its parent copied"),
            (
                7,
                2,
                trace("alloc 0 3; fork 0 1; fork 0 2; append 0; append 1; free 2"),
                "three sharers, two copy, the last frees",
            ),
        ],
    )


@check("Freeing returns only unshared blocks, in table order, to the back of the free list", hint="free-order")
def free_order(student: Student) -> None:
    play(
        student,
        [
            (8, 2, trace("alloc 0 5; free 0"), "one sequence freed"),
            (
                8,
                2,
                trace("alloc 0 3; alloc 1 2; free 1; free 0; alloc 2 7"),
                "frees, then an allocation that reaches the freed blocks",
            ),
            (7, 2, trace("alloc 0 5; fork 0 1; append 1; free 0; free 1"), "a shared prefix freed by its last holder"),
            (6, 3, trace("alloc 0 4; fork 0 1; free 0; alloc 2 6"), "a shared sequence freed once"),
        ],
    )


@check("A forked sequence has its own table; ids may be used again", hint="fork")
def fork_and_reuse(student: Student) -> None:
    play(
        student,
        [
            (
                8,
                2,
                trace("alloc 0 2; fork 0 1; append 1; append 1; append 0"),
                "a fork at a boundary, then appends to both",
            ),
            (
                8,
                3,
                trace("alloc 0 4; free 0; alloc 0 2; fork 0 1; free 1; fork 0 1; append 1"),
                "ids freed and given again",
            ),
            (9, 2, trace("alloc 7 1; fork 7 2; fork 2 9; append 9; free 7; append 2"), "a fork of a fork"),
        ],
    )


@check("Allocations of every size round up to whole blocks", hint="ceil")
def alloc_sizes(student: Student) -> None:
    cases = []
    for block_size in (1, 3, 4):
        ops: list[Op] = []
        for s, n in enumerate((1, block_size, block_size + 1, 2 * block_size, 3 * block_size - 1)):
            ops += [("alloc", s, n), ("append", s)]
        cases.append((40, block_size, ops, f"five sizes of sequence, block size {block_size}"))
    play(student, cases)


@check("Long random traces with pools just big enough", points=2, hint="cow")
def random_traces(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k, (block_size, n_ops) in enumerate([(1, 30), (2, 40), (3, 60), (4, 60), (5, 80), (16, 80), (2, 120)]):
        ops = random_trace(rng, block_size, n_ops)
        pool = peak_in_use(block_size, ops) + int(rng.integers(0, 3))
        cases.append((pool, block_size, ops, f"random trace {k + 1} of 7 ({len(ops)} operations)"))
    play(student, cases)


@check("ops is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    ops = trace("alloc 0 5; fork 0 1; append 1; append 0; free 0")
    # The same list twice in one batch: a first call that consumes or edits it changes what the second sees.
    first, second = student.run_blocks.each([(8, 4, ops), (8, 4, ops)])
    want = expected_blocks(8, 4, ops)
    expect_state(first, want, "the first call")
    expect_state(second, want, "a second call with the same list of operations")
