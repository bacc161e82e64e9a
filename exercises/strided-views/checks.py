"""Hidden checks for "Strides, Views and Reshapes Without a Copy".

Expected values come from brute force, element by element: for strided_gather, the address of
every index computed in a Python loop; for view_strides, every element's address in row-major
order, the only possible stride of each new dimension (the address step to the element whose
index is 1 in that dimension and 0 elsewhere), and a test of those strides on every element.
Views are made from numpy arrays (transposes, slices with steps, reversals, broadcasts, size-1
axes given arbitrary strides). A wrong answer is named by the grader, by comparing it with the
exercise's mutants on the same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, fail, values_shown

# --------------------------------------------------------------------------- brute force


def gather_want(buf: np.ndarray, shape: tuple, strides: tuple, offset: int) -> np.ndarray:
    out = np.zeros(shape, dtype=buf.dtype)
    for index in np.ndindex(*shape):
        out[index] = buf[offset + sum(i * s for i, s in zip(index, strides, strict=True))]
    return out


def addresses(shape: tuple, strides: tuple) -> list[int]:
    """The address (offset 0) of every element, in row-major order."""
    return [sum(i * s for i, s in zip(index, strides, strict=True)) for index in np.ndindex(*shape)]


def view_want(shape: tuple, strides: tuple, new_shape: tuple) -> tuple[int, ...] | None:
    """The strides that make the reshape a view (0 for the free size-1 dimensions), or None."""
    old = addresses(shape, strides)
    candidate = []
    for d in range(len(new_shape)):
        step = math.prod(new_shape[d + 1 :])  # element number of the index (0, …, 1 at d, …, 0)
        candidate.append(old[step] - old[0] if new_shape[d] > 1 else 0)
    return tuple(candidate) if addresses(new_shape, tuple(candidate)) == old else None


# --------------------------------------------------------------------------- comparing


def expect_gather(got: Any, want: np.ndarray, what: str) -> None:
    if want.shape == () and isinstance(got, np.generic) and got.dtype == want.dtype:
        got = np.asarray(got)
    expect_array(got, want, what=what, dtype=want.dtype, exact=True, hint="gather-form")


def is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def expect_strides(got: Any, want: tuple[int, ...] | None, new_shape: tuple, what: str) -> None:
    if want is None:
        if got is not None:
            fail(f"{what} should be None (no strides make this reshape a view: it needs a copy), "
                 f"got {describe(got)}", expected=None, got=got)  # fmt: skip
        return
    if got is None:
        fail(f"{what} is None, but this reshape is a view: strides exist", expected=want, got=got)
    if not isinstance(got, (tuple, list)) or len(got) != len(want) or not all(is_int(t) for t in got):
        fail(f"{what} should be a tuple of {len(want)} ints, one per dimension of the new shape, got {describe(got)}",
             hint="strides-form", expected=want, got=got)  # fmt: skip
    for d, (n, t, w) in enumerate(zip(new_shape, got, want, strict=True)):
        if n > 1 and t != w:
            shown = f": expected {w}, got {t}" if values_shown() else ""
            fail(f"{what}: the stride of dimension {d} is not the one that keeps every address{shown}",
                 expected=want, got=tuple(got))  # fmt: skip


def gather_cases(student: Student, cases: list[tuple[np.ndarray, tuple, tuple, int, str]]) -> None:
    results = student.strided_gather.each([(buf, shape, strides, offset) for buf, shape, strides, offset, _ in cases])
    for (buf, shape, strides, offset, label), got in zip(cases, results, strict=True):
        expect_gather(got, gather_want(buf, shape, strides, offset), f"the gathered view ({label})")


def view_cases(student: Student, cases: list[tuple[tuple, tuple, tuple, str]]) -> None:
    results = student.view_strides.each([(shape, strides, new) for shape, strides, new, _ in cases])
    for (shape, strides, new, label), got in zip(cases, results, strict=True):
        expect_strides(got, view_want(shape, strides, new), new, f"the strides ({label})")


def element_strides(a: np.ndarray) -> tuple[int, ...]:
    return tuple(s // a.itemsize for s in a.strides)


# --------------------------------------------------------------------------- the checks

WORKED_VIEWS = [
    ((4, 3), (1, 4), (2, 2, 3)),
    ((4, 3), (1, 4), (12,)),
    ((3, 1, 4), (4, 7, 1), (12,)),
    ((2, 3), (0, 0), (6,)),
    ((6,), (-1,), (2, 3)),
    ((2, 3), (4, 1), (6,)),
]


@check("The worked examples from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    buf = np.arange(10)
    expect_gather(student.strided_gather(buf, (2, 3), (1, 2), 1), gather_want(buf, (2, 3), (1, 2), 1),
                  "the (2, 3) view with strides (1, 2) at offset 1")  # fmt: skip
    for (shape, strides, new), got in zip(WORKED_VIEWS, student.view_strides.each(WORKED_VIEWS), strict=True):
        expect_strides(got, view_want(shape, strides, new), new, f"view_strides for {shape}, {strides} → {new}")


@check("strided_gather with offsets, negative, zero and overlapping strides", hint="address")
def gather_views(student: Student, rng: np.random.Generator) -> None:
    ints = rng.integers(-1000, 1000, size=60)
    floats = rng.normal(size=48)
    cases = [
        (ints, (3, 4), (4, 1), 0, "contiguous"),
        (ints, (3, 4), (1, 3), 5, "transposed, at an offset"),
        (ints, (4, 3), (6, 2), 7, "every other element of wider rows"),
        (ints, (5,), (-3,), 40, "a negative stride"),
        (ints, (3, 4), (-8, 2), 30, "rows read backwards"),
        (ints, (4, 5), (0, 1), 9, "a row broadcast with stride 0"),
        (ints, (6, 4), (1, 1), 2, "overlapping sliding windows"),
        (floats, (2, 3, 4), (1, 8, 2), 3, "three axes of float64"),
        (floats, (2, 2, 2, 3), (24, -6, 3, 1), 10, "four axes, one reversed"),
        (floats, (3, 1, 2), (5, 77, -1), 20, "a size-1 axis with any stride"),
    ]
    gather_cases(student, cases)


@check("strided_gather for 0-d and empty views", hint="gather-form")
def gather_edges(student: Student, rng: np.random.Generator) -> None:
    ints = rng.integers(-100, 100, size=12)
    floats = rng.normal(size=12)
    cases = [
        (ints, (), (), 7, "a 0-d view of int64"),
        (floats, (), (), 0, "a 0-d view of float64"),
        (ints, (0,), (1,), 3, "an empty vector"),
        (floats, (3, 0, 2), (2, 1, 5), 1, "an empty middle axis"),
        (ints, (1, 1), (9, -4), 11, "a single element, far strides"),
    ]
    gather_cases(student, cases)


@check("view_strides for views made by numpy", hint="groups")
def numpy_views(student: Student) -> None:
    a = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5)
    views = [
        (a, (6, 20), "a contiguous array merged"),
        (a.transpose(1, 0, 2, 3), (3, 2, 20), "swapped leading axes, last two merged"),
        (a.transpose(1, 0, 2, 3), (6, 20), "swapped leading axes merged"),
        (a[:, :, ::2], (2, 3, 10), "every other row, rows merged with columns"),
        (a[:, :, ::2], (6, 2, 5), "every other row, leading axes merged"),
        (a[::-1, :, ::-1], (2, 12, 5), "two reversed axes"),
        (a[::-1, :, ::-1], (2, 3, 2, 2, 5), "a reversed axis split"),
        (a[:, 1:, :, 1:4], (2, 2, 12), "sliced columns"),
        (a[:, 1:, :, 1:4], (4, 4, 3), "sliced columns, leading axes merged"),
        (a.T, (5, 4, 6), "a full transpose, two axes merged"),
        (a.T, (20, 6), "a full transpose, columns merged with rows"),
        (np.broadcast_to(a[0, 0, 0], (3, 4, 5)), (12, 5), "a row broadcast over two axes"),
        (np.broadcast_to(a[0, :, :1], (3, 4, 5)), (3, 20), "a column broadcast along rows"),
        (np.broadcast_to(a[0, :, :1], (3, 4, 5)), (60,), "a column broadcast, flattened"),
    ]
    cases = [(v.shape, element_strides(v), new, label) for v, new, label in views]
    view_cases(student, cases)


@check("view_strides with size-1 dimensions on either side", hint="size-one")
def size_one(student: Student, rng: np.random.Generator) -> None:
    free = [int(s) for s in rng.integers(-50, 50, size=6)]
    cases = [
        ((3, 1, 4), (4, free[0], 1), (12,), "a size-1 axis in the middle"),
        ((1, 6), (free[1], 1), (2, 3), "a leading size-1 axis"),
        ((6, 1), (2, free[2]), (3, 2), "a trailing size-1 axis, stride 2"),
        ((2, 1, 3), (-3, free[3], -1), (6, 1), "a reversed array, size-1 axes on both sides"),
        ((4, 3), (1, 4), (4, 1, 3), "a size-1 axis inserted"),
        ((4, 3), (1, 4), (1, 4, 3, 1), "size-1 axes around"),
        ((1, 1), (free[4], free[5]), (1,), "a single element"),
        ((), (), (1, 1), "a 0-d view to (1, 1)"),
        ((5, 1, 1), (3, free[0], free[1]), (5,), "two trailing size-1 axes"),
        ((2, 1, 3), (1, free[2], 2), (6,), "column-major with a size-1 axis"),
    ]
    view_cases(student, cases)


@check("view_strides: which non-contiguous views can merge and split", hint="groups")
def merges_and_splits(student: Student) -> None:
    cases = [
        ((2, 3, 4), (24, 4, 1), (2, 12), "rows of a wider array, inner axes merged"),
        ((2, 3, 4), (24, 4, 1), (6, 4), "rows of a wider array, outer axes merged"),
        ((2, 3, 4), (1, 2, 6), (6, 4), "column-major, outer axes merged"),
        ((2, 3, 4), (1, 2, 6), (2, 12), "column-major, inner axes merged"),
        ((4, 6), (6, 1), (2, 12), "contiguous, regrouped"),
        ((4, 6), (12, 2), (2, 2, 3, 2), "strided, split on both axes"),
        ((4, 6), (12, 2), (8, 3), "strided, regrouped across axes"),
        ((4, 6), (-6, 1), (2, 12), "reversed rows, regrouped"),
        ((3, 4), (0, 1), (3, 2, 2), "broadcast rows, columns split"),
        ((3, 4), (1, 0), (12,), "broadcast columns, flattened"),
        ((3, 2, 2), (4, 2, 1), (12,), "contiguous, flattened"),
        ((6,), (3,), (3, 2), "a strided vector split"),
    ]
    view_cases(student, cases)


@check("view_strides for random views and reshapes", hint="groups")
def random_views(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(24):
        dims = [int(x) for x in rng.integers(1, 5, size=int(rng.integers(2, 5)))]
        v = np.arange(math.prod(dims)).reshape(dims)
        v = v.transpose(rng.permutation(len(dims)))
        if rng.random() < 0.5:
            v = v[tuple(slice(None, None, int(rng.choice([1, -1]))) for _ in dims)]
        strides = tuple(
            s if size > 1 else int(rng.integers(-9, 9)) for size, s in zip(v.shape, element_strides(v), strict=True)
        )
        total = v.size
        new = []
        while total > 1:
            factor = int(rng.choice([f for f in range(2, total + 1) if total % f == 0]))
            new.append(factor)
            total //= factor
        if rng.random() < 0.3:
            new.insert(int(rng.integers(len(new) + 1)), 1)
        cases.append((v.shape, strides, tuple(new), f"random view {n + 1} of 24"))
    view_cases(student, cases)


@check("The buffer is left unchanged", hint="no-mutation")
def buffer_unchanged(student: Student, rng: np.random.Generator) -> None:
    buf = rng.integers(-50, 50, size=20)
    # One buffer for every call of one crossing: a call that changes it changes what the later
    # calls see.
    calls = [(buf, (4, 3), (-4, 1), 12, "rows backwards"), (buf, (20,), (1,), 0, "the whole buffer"),
             (buf, (3, 4), (1, 4), 2, "transposed"), (buf, (20,), (1,), 0, "the whole buffer again")]  # fmt: skip
    gather_cases(student, [(b, s, t, o, f"{label}, call {k + 1} of 4") for k, (b, s, t, o, label) in enumerate(calls)])
