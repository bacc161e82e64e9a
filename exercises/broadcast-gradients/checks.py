"""Hidden checks for "Gradients Through Broadcasting and Matmul".

Every expected gradient is built entry by entry from its definition, never with the reduction
rules the student writes: the gradient of an operand x at index i is ⟨G, F(e_i)⟩, where e_i is the
one-hot array of x's shape and F the linear map that made the result (broadcasting x, or a matmul
with the other operand fixed). Both maps are linear in x, so this is exact. A wrong answer is
named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_tuple, fail

# --------------------------------------------------------------------------- independent gradients


def basis(shape: tuple[int, ...]):
    """Every (index, one-hot array of ``shape``)."""
    for index in np.ndindex(*shape):
        e = np.zeros(shape)
        e[index] = 1.0
        yield index, e


def unbroadcast_want(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """d⟨grad, broadcast_to(x, grad.shape)⟩ / dx, one entry of x at a time."""
    want = np.zeros(shape)
    for index, e in basis(shape):
        want[index] = np.sum(grad * np.broadcast_to(e, grad.shape))
    return want


def matmul_want(a: np.ndarray, b: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """d⟨g, matmul(a, b)⟩ / da and / db, one entry of a (then of b) at a time."""
    da = np.zeros(a.shape)
    for index, e in basis(a.shape):
        da[index] = np.sum(g * np.matmul(e, b))
    db = np.zeros(b.shape)
    for index, e in basis(b.shape):
        db[index] = np.sum(g * np.matmul(a, e))
    return da, db


# --------------------------------------------------------------------------- comparing


def tolerance(want: np.ndarray) -> dict[str, float]:
    return {"rtol": 1e-9, "atol": 1e-9 * max(1.0, float(np.max(np.abs(want), initial=0.0)))}


def expect_grad(got: Any, want: np.ndarray, what: str, hint: str) -> None:
    """A float64 array of exactly want's shape (for shape (), a float is accepted too), then its values."""
    if want.shape == () and isinstance(got, (float, np.float64)) and not isinstance(got, bool):
        got = np.asarray(got)
    if isinstance(got, np.ndarray) and got.shape != want.shape:
        fail(f"{what} should have shape {want.shape}, got shape {got.shape}", hint=hint, expected=want, got=got)
    if isinstance(got, np.ndarray) and got.dtype != np.float64:
        fail(f"{what} should be a float64 array, got {describe(got)}", hint=hint, expected=want, got=got)
    expect_array(got, want, what=what, hint=hint, **tolerance(want))


def unbroadcast_cases(student: Student, cases: list[tuple[np.ndarray, tuple[int, ...], str]]) -> None:
    """Every case in one crossing; each answer compared with the entry-by-entry gradient."""
    results = student.unbroadcast.each([(grad, shape) for grad, shape, _ in cases])
    for (grad, shape, label), got in zip(cases, results, strict=True):
        expect_grad(got, unbroadcast_want(grad, shape), f"the gradient of shape {shape} ({label})", "shape-rules")


def expect_vjp(got: Any, a: np.ndarray, b: np.ndarray, g: np.ndarray, label: str, hint: str) -> None:
    """A tuple (da, db), each checked against the entry-by-entry gradient."""
    da_want, db_want = matmul_want(a, b, g)
    expect_tuple(
        got,
        [
            lambda da: expect_grad(da, da_want, f"da ({label})", hint),
            lambda db: expect_grad(db, db_want, f"db ({label})", hint),
        ],
        what=f"matmul_vjp's return value ({label})",
        hint="vjp-form",
    )


def matmul_cases(student: Student, cases: list[tuple[np.ndarray, np.ndarray, str]], rng: np.random.Generator) -> None:
    """Every case (a, b) with a random g of the product's shape, in one crossing."""
    calls = [(a, b, rng.normal(size=np.matmul(a, b).shape)) for a, b, _ in cases]
    results = student.matmul_vjp.each(calls)
    for (a, b, label), (_, _, g), got in zip(cases, calls, results, strict=True):
        expect_vjp(got, a, b, g, f"{label}: a {a.shape}, b {b.shape}", "vjp-form")


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2, hint="shape-rules")
def worked_example(student: Student) -> None:
    grad = np.arange(6.0).reshape(2, 3)
    row, column, scalar = student.unbroadcast.each([(grad, (3,)), (grad, (2, 1)), (grad, ())])
    expect_grad(row, np.array([3.0, 5.0, 7.0]), "the gradient of shape (3,)", "shape-rules")
    expect_grad(column, np.array([[3.0], [12.0]]), "the gradient of shape (2, 1)", "shape-rules")
    expect_grad(scalar, np.array(15.0), "the gradient of shape ()", "shape-rules")
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    b = np.array([1.0, 0.0, -1.0])
    expect_tuple(
        student.matmul_vjp(a, b, np.array([1.0, 2.0])),
        [
            lambda da: expect_grad(da, np.array([[1.0, 0.0, -1.0], [2.0, 0.0, -2.0]]), "da", "vjp-form"),
            lambda db: expect_grad(db, np.array([9.0, 12.0, 15.0]), "db", "vjp-form"),
        ],
        what="matmul_vjp's return value",
        hint="vjp-form",
    )


@check("unbroadcast over leading axes the operand lacks", hint="align-right")
def unbroadcast_leading(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (rng.normal(size=(4, 5, 6)), (6,), "two leading axes"),
        (rng.normal(size=(4, 5, 6)), (5, 6), "one leading axis"),
        (rng.normal(size=(3, 2)), (2,), "a (3, 2) gradient"),
        (rng.normal(size=(2, 3, 3)), (3, 3), "square trailing axes"),
        (rng.normal(size=(5, 4)), (), "a scalar operand"),
        (rng.normal(size=(2, 3, 4, 2)), (4, 2), "four axes"),
    ]
    unbroadcast_cases(student, cases)


@check("unbroadcast over axes stretched from size 1, kept as size 1", hint="stretched")
def unbroadcast_stretched(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (rng.normal(size=(4, 5, 6)), (4, 1, 6), "a middle axis"),
        (rng.normal(size=(4, 5, 6)), (1, 5, 1), "two stretched axes"),
        (rng.normal(size=(4, 5, 6)), (1, 1, 1), "every axis"),
        (rng.normal(size=(3, 4)), (3, 1), "a column"),
        (rng.normal(size=(3, 4)), (1, 4), "a row with its axis kept"),
        (rng.normal(size=(2, 3, 4)), (3, 1), "a leading axis and a stretched one"),
        (rng.normal(size=(2, 3, 4)), (1, 4), "a leading axis and a stretched one, the other way"),
        (rng.normal(size=(3, 1, 4)), (1, 1, 4), "an axis already of size 1"),
    ]
    unbroadcast_cases(student, cases)


@check("unbroadcast when nothing was broadcast", hint="shape-rules")
def unbroadcast_identity(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (rng.normal(size=(3, 4)), (3, 4), "the same shape"),
        (rng.normal(size=(5,)), (5,), "a vector"),
        (rng.normal(size=(2, 1, 3)), (2, 1, 3), "a size-1 axis in both"),
        (np.array(rng.normal()), (), "a 0-d gradient"),
        (rng.normal(size=(1,)), (), "a one-element gradient to a scalar"),
    ]
    unbroadcast_cases(student, cases)


@check("matmul_vjp for 2-D operands of many shapes", hint="vjp-form")
def matmul_2d(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (rng.normal(size=(2, 3)), rng.normal(size=(3, 4)), "2-D by 2-D"),
        (rng.normal(size=(1, 5)), rng.normal(size=(5, 2)), "a single row"),
        (rng.normal(size=(4, 1)), rng.normal(size=(1, 3)), "an outer product"),
        (rng.normal(size=(3, 3)), rng.normal(size=(3, 3)), "square"),
        (rng.normal(size=(5, 2)), rng.normal(size=(2, 1)), "a single column"),
    ]
    matmul_cases(student, cases, rng)


@check("matmul_vjp with 1-D operands", hint="one-d")
def matmul_1d(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (rng.normal(size=(4,)), rng.normal(size=(4,)), "two vectors"),
        (rng.normal(size=(3, 4)), rng.normal(size=(4,)), "a matrix by a vector"),
        (rng.normal(size=(4,)), rng.normal(size=(4, 3)), "a vector by a matrix"),
        (rng.normal(size=(3,)), rng.normal(size=(3, 3, 3)), "a vector by a stack of squares"),
        (rng.normal(size=(3,)), rng.normal(size=(2, 3, 4)), "a vector by a stack"),
        (rng.normal(size=(2, 5, 3)), rng.normal(size=(3,)), "a stack by a vector"),
        (rng.normal(size=(3,)), rng.normal(size=(2, 2, 3, 3)), "a vector by a 4-D stack of squares"),
        (rng.normal(size=(2, 2, 3, 3)), rng.normal(size=(3,)), "a 4-D stack of squares by a vector"),
        (rng.normal(size=(1,)), rng.normal(size=(1,)), "two one-element vectors"),
    ]
    matmul_cases(student, cases, rng)


@check("matmul_vjp with batch axes that broadcast", hint="batch")
def matmul_batched(student: Student, rng: np.random.Generator) -> None:
    cases = [
        (rng.normal(size=(3, 2, 4)), rng.normal(size=(4, 5)), "a stack by a matrix"),
        (rng.normal(size=(2, 4)), rng.normal(size=(3, 4, 5)), "a matrix by a stack"),
        (rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 4, 5)), "stacks of the same size"),
        (rng.normal(size=(2, 1, 3, 4)), rng.normal(size=(5, 4, 2)), "batch axes of size 1 stretched"),
        (rng.normal(size=(1, 3, 2, 4)), rng.normal(size=(2, 1, 4, 3)), "stretched on both sides"),
        (rng.normal(size=(2, 3, 4, 5)), rng.normal(size=(2, 3, 5, 2)), "two batch axes"),
        (rng.normal(size=(2, 3, 3, 3)), rng.normal(size=(3, 3)), "a 4-D stack of squares by a square"),
        (rng.normal(size=(3, 3)), rng.normal(size=(2, 3, 3, 3)), "a square by a 4-D stack of squares"),
        (rng.normal(size=(3, 1, 3, 3)), rng.normal(size=(1, 3, 3, 3)), "4-D stacks of squares, stretched"),
    ]
    matmul_cases(student, cases, rng)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    # The same arrays for every call of one crossing: a call that changes them changes what the
    # later calls see.
    grad = rng.normal(size=(3, 4, 2))
    shapes = [(4, 1), (1, 4, 2), (), (3, 4, 2)]
    a, b = rng.normal(size=(2, 3, 4)), rng.normal(size=(4, 2))
    g = rng.normal(size=(2, 3, 2))
    for n, got in enumerate(student.matmul_vjp.each([(a, b, g)] * 3), start=1):
        expect_vjp(got, a, b, g, f"call {n} of 3 on the same arrays", "no-mutation")
    repeated = student.unbroadcast.each([(grad, s) for s in shapes] * 2)
    for n, (shape, got) in enumerate(zip(shapes * 2, repeated, strict=True), start=1):
        expect_grad(got, unbroadcast_want(grad, shape), f"the gradient of shape {shape}, call {n} of 8", "no-mutation")
