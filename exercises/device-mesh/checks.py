"""Checks for "Ranks on a Device Mesh".

The expected values never use strides. Coordinates come from enumerating every coordinate tuple
with itertools.product, the slowest axis outermost, and numbering the tuples in turn: the n-th
tuple is rank n. Groups come from numpy: the ranks laid out as a C-ordered array whose last axis is
order[0], the axes of dims moved to the end, and each row of the reshaped array one group. A wrong
answer is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_dict, expect_ints, fail

Sizes = dict[str, int]

# --------------------------------------------------------------------------- independent expected values


def all_coords(sizes: Sizes, order: list[str]) -> list[dict[str, int]]:
    """The coordinates of every rank: the tuples of product(), slowest axis outermost, numbered in turn."""
    slowest_first = list(reversed(order))
    return [
        {name: combo[slowest_first.index(name)] for name in order}
        for combo in itertools.product(*(range(sizes[name]) for name in slowest_first))
    ]


def expected_groups(sizes: Sizes, order: list[str], dims: list[str]) -> list[list[int]]:
    """Rows of the rank grid once the axes of dims are moved last; sorted rows, sorted by their first rank."""
    slowest_first = list(reversed(order))
    grid = np.arange(math.prod(sizes.values())).reshape([sizes[name] for name in slowest_first])
    spanned = [slowest_first.index(name) for name in dims]
    kept = [axis for axis in range(len(slowest_first)) if axis not in spanned]
    rows = np.transpose(grid, kept + spanned).reshape(-1, math.prod(sizes[name] for name in dims))
    return sorted(sorted(int(rank) for rank in row) for row in rows)


# --------------------------------------------------------------------------- comparing answers


def is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def expect_coords(got: Any, want: dict[str, int], what: str) -> None:
    """A dict with exactly the names of sizes, each an int, equal to the expected coordinates."""
    expect_dict(got, list(want), what=what, hint="form")
    for name in want:
        if not is_int(got[name]):
            fail(f"{what}: every coordinate should be an int, got {describe(got[name])}", hint="form", got=got)
    expect_ints([got[name] for name in want], list(want.values()), what=f"{what} (listed in the order of order)")


def compare_coords(student: Student, meshes: list[tuple[Sizes, list[str], str]]) -> None:
    """Every rank of every mesh in one crossing."""
    calls, wants, labels = [], [], []
    for sizes, order, label in meshes:
        for rank, want in enumerate(all_coords(sizes, order)):
            calls.append((rank, sizes, order))
            wants.append(want)
            labels.append(f"the coordinates of rank {rank} ({label})")
    for got, want, what in zip(student.rank_coords.each(calls), wants, labels, strict=True):
        expect_coords(got, want, what)


def compare_groups(student: Student, cases: list[tuple[Sizes, list[str], list[str], str]]) -> None:
    results = student.rank_groups.each([(sizes, order, dims) for sizes, order, dims, _ in cases])
    for (sizes, order, dims, what), got in zip(cases, results, strict=True):
        expect_ints(got, expected_groups(sizes, order, dims), what=f"the groups ({what})")


def names(*pairs: tuple[str, int]) -> Sizes:
    return dict(pairs)


EXAMPLE = {"tp": 2, "dp": 2, "pp": 2}
ORDER = ["tp", "dp", "pp"]
MEGATRON = {"tp": 2, "dp": 2, "pp": 4}

# --------------------------------------------------------------------------- the checks


@check("The worked example: the coordinates of every rank of the table", public=True, points=2, hint="order")
def worked_example_coords(student: Student) -> None:
    table = [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (1, 1, 1)]
    results = student.rank_coords.each([(rank, EXAMPLE, ORDER) for rank in range(8)])
    first = [5] + [rank for rank in range(8) if rank != 5]  # the statement's rank 5 first
    for rank in first:
        want = dict(zip(ORDER, table[rank], strict=True))
        expect_coords(results[rank], want, f"the coordinates of rank {rank}")


@check("The worked example: the tp, dp, pp and tp+pp groups, and Megatron's pipeline groups", public=True,
       points=2, hint="same-group")  # fmt: skip
def worked_example_groups(student: Student) -> None:
    cases = [
        (EXAMPLE, ["tp"], [[0, 1], [2, 3], [4, 5], [6, 7]], "the tp groups"),
        (EXAMPLE, ["dp"], [[0, 2], [1, 3], [4, 6], [5, 7]], "the dp groups"),
        (EXAMPLE, ["pp"], [[0, 4], [1, 5], [2, 6], [3, 7]], "the pp groups"),
        (EXAMPLE, ["tp", "pp"], [[0, 1, 4, 5], [2, 3, 6, 7]], "the groups along tp and pp"),
        (MEGATRON, ["pp"], [[0, 4, 8, 12], [1, 5, 9, 13], [2, 6, 10, 14], [3, 7, 11, 15]],
         "Megatron's 16 GPUs, the pp groups"),
    ]  # fmt: skip
    results = student.rank_groups.each([(sizes, ORDER, dims) for sizes, dims, _, _ in cases])
    for (_, _, want, what), got in zip(cases, results, strict=True):
        expect_ints(got, want, what=what)


@check("Coordinates on uneven meshes, with orders other than the keys of sizes", hint="order")
def coords_uneven(student: Student) -> None:
    compare_coords(
        student,
        [
            (names(("tp", 3), ("dp", 2), ("pp", 4)), ["tp", "dp", "pp"], "mesh 1 of 5, 3 axes"),
            (names(("tp", 2), ("dp", 3), ("pp", 4)), ["pp", "tp", "dp"], "mesh 2 of 5, 3 axes"),
            (names(("pp", 2), ("dp", 3), ("cp", 2), ("tp", 2)), ["tp", "cp", "dp", "pp"], "mesh 3 of 5, 4 axes"),
            (names(("a", 5), ("b", 3)), ["b", "a"], "mesh 4 of 5, 2 axes"),
            (names(("dp", 7)), ["dp"], "mesh 5 of 5, 1 axis"),
        ],
    )


@check("Coordinates keep the axes of size 1", hint="size-one")
def coords_size_one(student: Student) -> None:
    compare_coords(
        student,
        [
            (names(("tp", 4), ("cp", 1), ("dp", 3), ("pp", 1)), ["tp", "cp", "dp", "pp"], "mesh 1 of 3, 4 axes"),
            (names(("ep", 1), ("tp", 2), ("dp", 3)), ["ep", "tp", "dp"], "mesh 2 of 3, 3 axes"),
            (names(("tp", 1), ("dp", 1), ("pp", 1)), ["dp", "pp", "tp"], "mesh 3 of 3, a single rank"),
        ],
    )


@check("Groups along one axis of uneven meshes", hint="same-group")
def groups_one_axis(student: Student) -> None:
    meshes = [
        (names(("tp", 3), ("dp", 2), ("pp", 4)), ["tp", "dp", "pp"]),
        (names(("tp", 2), ("dp", 3), ("pp", 4)), ["pp", "tp", "dp"]),
        (names(("pp", 2), ("dp", 3), ("cp", 2), ("tp", 2)), ["tp", "cp", "dp", "pp"]),
    ]
    cases = [
        (sizes, order, [name], f"mesh {m} of {len(meshes)}, along axis {order.index(name) + 1} of order")
        for m, (sizes, order) in enumerate(meshes, start=1)
        for name in order
    ]
    compare_groups(student, cases)


@check("Groups along several axes, listed in any order", hint="ascending")
def groups_many_axes(student: Student) -> None:
    four = names(("tp", 2), ("cp", 2), ("dp", 3), ("pp", 2))
    four_order = ["tp", "cp", "dp", "pp"]
    three = names(("tp", 3), ("dp", 2), ("pp", 2))
    cases = [
        (EXAMPLE, ORDER, ["tp", "dp"], "2 axes, fastest listed first"),
        (EXAMPLE, ORDER, ["dp", "tp"], "2 axes, slowest listed first"),
        (three, ["tp", "dp", "pp"], ["tp", "pp"], "2 axes that are not neighbours"),
        (three, ["tp", "dp", "pp"], ["pp", "tp"], "2 axes that are not neighbours, slowest listed first"),
        (four, four_order, ["tp", "cp"], "tp and cp of a 4-axis mesh"),
        (four, four_order, ["cp", "dp"], "cp and dp of a 4-axis mesh"),
        (four, four_order, ["dp", "tp", "pp"], "3 of 4 axes, out of order"),
        (four, four_order, ["tp", "pp", "cp"], "3 of 4 axes, another order"),
    ]
    compare_groups(student, cases)


@check("Groups are ordered by their smallest rank", hint="group-order")
def group_order(student: Student) -> None:
    five = names(("tp", 2), ("dp", 3), ("pp", 2))
    cases = [
        (five, ["tp", "dp", "pp"], ["dp"], "the middle axis of 3"),
        (five, ["tp", "dp", "pp"], ["pp"], "the slowest axis of 3"),
        (names(("a", 3), ("b", 2), ("c", 2), ("d", 2)), ["a", "b", "c", "d"], ["b"], "axis 2 of 4"),
        (names(("a", 3), ("b", 2), ("c", 2), ("d", 2)), ["a", "b", "c", "d"], ["c", "a"], "axes 1 and 3 of 4"),
    ]
    compare_groups(student, cases)


@check("No axis in dims gives one group per rank; every axis gives one group of all ranks", hint="same-group")
def groups_edges(student: Student) -> None:
    mesh = names(("pp", 2), ("tp", 3), ("dp", 2))
    cases = [
        (mesh, ["tp", "dp", "pp"], [], "no axis"),
        (mesh, ["tp", "dp", "pp"], ["pp", "tp", "dp"], "every axis"),
        (names(("tp", 4), ("cp", 1), ("dp", 1), ("pp", 3)), ["tp", "cp", "dp", "pp"], ["cp"], "an axis of size 1"),
        (names(("tp", 4), ("cp", 1), ("dp", 1), ("pp", 3)), ["tp", "cp", "dp", "pp"], ["dp", "pp"],
         "an axis of size 1 and another"),
        (names(("dp", 1)), ["dp"], ["dp"], "a mesh of a single rank"),
        (names(("dp", 5)), ["dp"], [], "a single axis, no axis in dims"),
    ]  # fmt: skip
    compare_groups(student, cases)


@check("sizes, order and dims are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    sizes = names(("tp", 2), ("dp", 3), ("pp", 2))
    order = ["tp", "dp", "pp"]
    tp, dp = ["tp"], ["dp"]
    # The same objects in one batch: a call that changes them changes what the later calls see.
    cases = [(sizes, order, dp, "the dp groups"), (sizes, order, tp, "the tp groups, after the dp groups"),
             (sizes, order, dp, "the dp groups again")]  # fmt: skip
    compare_groups(student, cases)
