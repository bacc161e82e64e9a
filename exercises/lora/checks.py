"""Hidden checks for "LoRA: Low-Rank Adapters, Merged and Unmerged".

Expected values are computed here by another route than a solution's: the update is summed as r
outer products (one per rank), added to the weights, and the layer is applied row by row with
einsum. A wrong answer is named by the grader, by comparing it with the exercise's mutants.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, expect_array, fail

Case = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]


# --------------------------------------------------------------------------- independent reference


def delta(a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """(alpha / r) · Σ_k b[:, k] ⊗ a[k]: the update as a sum of r rank-one matrices."""
    r = len(a)
    total = np.zeros((b.shape[0], a.shape[1]))
    for k in range(r):
        total += np.outer(b[:, k], a[k])
    return total * (alpha / r)


def merged(w: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    return w + delta(a, b, alpha)


def forward(x: np.ndarray, w: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: float) -> np.ndarray:
    """Each output row is the effective weight matrix applied to that input row."""
    return np.einsum("oi,ni->no", merged(w, a, b, alpha), x)


def random_case(rng: np.random.Generator, batch: int, n_in: int, n_out: int, r: int, alpha: float) -> Case:
    x = rng.normal(size=(batch, n_in))
    w = rng.normal(size=(n_out, n_in)) / np.sqrt(n_in)
    a = rng.normal(size=(r, n_in)) / np.sqrt(n_in)
    b = rng.normal(size=(n_out, r))
    return x, w, a, b, alpha


def label(case: Case, *, batch: bool = True) -> str:
    """The case's sizes: never alpha, a value of the hidden inputs."""
    x, w, a, _, _ = case
    sizes = f"in={w.shape[1]}, out={w.shape[0]}, r={a.shape[0]}"
    return f"batch={x.shape[0]}, {sizes}" if batch else sizes


# --------------------------------------------------------------------------- comparing


def expect_float64(got: Any, want: Any, *, what: str) -> None:
    """Shape first (hint "shape"), then the dtype (hint "dtype"), then the values."""
    want = np.asarray(want, dtype=np.float64)
    same_shape = isinstance(got, np.ndarray) and got.dtype.kind in "fiu" and got.shape == want.shape
    if same_shape and got.dtype != np.float64:
        fail(f"{what} should hold float64 values, got dtype {got.dtype}", hint="dtype")
    expect_array(got, want, what=what, rtol=1e-9, atol=1e-12, hint="shape")


def check_forward(student: Student, cases: list[Case], where: str) -> None:
    results = student.lora_forward.each(cases)
    for n, (case, got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_float64(got, forward(*case), what=f"y ({where} {n} of {len(cases)}: {label(case)})")


def check_merge(student: Student, cases: list[Case], where: str) -> None:
    results = student.lora_merge.each([case[1:] for case in cases])
    for n, (case, got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_float64(
            got, merged(*case[1:]), what=f"w_merged ({where} {n} of {len(cases)}: {label(case, batch=False)})"
        )


# --------------------------------------------------------------------------- the checks

EXAMPLE: Case = (
    np.array([[1.0, 2.0, 0.0], [0.0, 1.0, 1.0]]),
    np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]),
    np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]),
    np.array([[1.0, 0.0], [2.0, 1.0]]),
    1.0,
)


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    x, w, a, b, alpha = EXAMPLE
    expect_float64(student.lora_forward(x, w, a, b, alpha), [[1.5, 4.0], [1.0, 2.0]], what="y (worked example)")
    want = [[1.5, 0.0, 1.0], [1.0, 1.5, 0.5]]
    expect_float64(student.lora_merge(w, a, b, alpha), want, what="w_merged (worked example)")


@check("Outputs have the right shapes and dtype", hint="shape")
def output_forms(student: Student) -> None:
    rng = np.random.default_rng(1)
    x, w, a, b, alpha = random_case(rng, 3, 5, 4, 2, 3.0)
    y = student.lora_forward(x, w, a, b, alpha)
    for name, got, shape in (("y", y, (3, 4)), ("w_merged", student.lora_merge(w, a, b, alpha), (4, 5))):
        if not isinstance(got, np.ndarray) or got.shape != shape:
            kind = got.shape if isinstance(got, np.ndarray) else type(got).__name__
            fail(f"{name} should be a numpy array of shape {shape} (batch=3, in=5, out=4, r=2), got {kind}")
        if got.dtype != np.float64:
            fail(f"{name} should hold float64 values, got dtype {got.dtype}", hint="dtype")


@check("lora_forward for many shapes, ranks and scales")
def forward_shapes(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = [
        random_case(rng, 1, 6, 4, 1, 8.0),
        random_case(rng, 5, 7, 3, 3, 16),
        random_case(rng, 4, 10, 12, 4, 6.0),
        random_case(rng, 2, 32, 20, 5, 7.5),
        random_case(rng, 6, 9, 5, 2, 1.0),
        random_case(rng, 3, 12, 8, 8, 32),
    ]
    check_forward(student, cases, "case")


@check("lora_merge for many shapes, ranks and scales")
def merge_shapes(student: Student) -> None:
    rng = np.random.default_rng(3)
    cases = [
        random_case(rng, 1, 6, 4, 1, 8.0),
        random_case(rng, 1, 7, 3, 3, 16),
        random_case(rng, 1, 10, 12, 4, 6.0),
        random_case(rng, 1, 32, 20, 5, 7.5),
        random_case(rng, 1, 9, 5, 2, 1.0),
        random_case(rng, 1, 12, 8, 8, 32),
    ]
    check_merge(student, cases, "case")


@check("Square layers (out = in), where a transposed matrix has the right shape")
def square_layers(student: Student) -> None:
    rng = np.random.default_rng(4)
    cases = [random_case(rng, 3, 6, 6, 2, 3.0), random_case(rng, 6, 6, 6, 3, 4.0)]
    check_forward(student, cases, "square layer")
    check_merge(student, cases, "square layer")


@check("A new adapter (b = 0) leaves the layer as it was")
def zero_adapter(student: Student) -> None:
    rng = np.random.default_rng(5)
    x, w, a, _, alpha = random_case(rng, 4, 7, 5, 3, 9.0)
    b = np.zeros((5, 3))
    expect_float64(student.lora_forward(x, w, a, b, alpha), x @ w.T, what="y (b = 0)")
    expect_float64(student.lora_merge(w, a, b, alpha), w, what="w_merged (b = 0)")


@check("Merging and forwarding leave their arguments unchanged", hint="no-mutation")
def arguments_unchanged(student: Student) -> None:
    rng = np.random.default_rng(6)
    case = random_case(rng, 3, 5, 4, 3, 5.0)
    _, w, a, b, alpha = case
    # The same objects in two calls of one crossing: a first call that changes them in place changes
    # what the second one sees. Only the answers are evidence.
    for name, calls, want in (
        ("lora_merge", [(w, a, b, alpha)] * 2, merged(w, a, b, alpha)),
        ("lora_forward", [case] * 2, forward(*case)),
    ):
        first, second = getattr(student, name).each(calls)
        comparable = isinstance(first, np.ndarray) and isinstance(second, np.ndarray) and first.shape == second.shape
        if comparable and not np.allclose(first, second, rtol=1e-12, atol=0):
            fail(f"{name} gave different answers to two calls with the same arrays: the first call changed "
                 "the arrays it was given (w += … changes the caller's w)")  # fmt: skip
        expect_float64(first, want, what=f"the answer of {name}, first of two calls with the same arrays")
        expect_float64(second, want, what=f"the answer of {name}, second of two calls with the same arrays")
