"""Hidden checks for "Tensor-Parallel SwiGLU MLP".

The expected values never use the backward formulas, nor np.array_split. Each rank's hidden units
come from counting (the first F mod tp ranks get one more). The MLP is written as a sum over
hidden units: L[n, f] = Σ_k dy[n, k]·silu(h1[n, f])·h3[n, f]·W2[f, k] is the share of the loss
L = Σ dy ⊙ y that unit f adds for row n, so rank r's partial output and loss are sums over its own
units. Gradients come from the complex step: the inputs are evaluated in complex arithmetic with
one column (or row) nudged by i·h, and ∂L/∂entry is Im(L) / h, exact to rounding. Rows of x are
independent and so are hidden units, so nudging a whole column of x (or a whole row of W1, W3, or
a column of W2) at once gives every entry of it from the right L[n, f]. A wrong answer is named by
the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail

H = 1e-20  # the complex step
GRAD_NAMES = ("dx_parts", "dw1_shards", "dw3_shards", "dw2_shards")


# --------------------------------------------------------------------------- independent expected values


def units(F: int, tp: int) -> list[list[int]]:
    """Rank r's hidden units, by counting: ⌈F/tp⌉ for the first F mod tp ranks, ⌊F/tp⌋ for the rest."""
    small, extra = divmod(F, tp)
    owned, first = [], 0
    for r in range(tp):
        size = small + 1 if r < extra else small
        owned.append(list(range(first, first + size)))
        first += size
    return owned


def unit_losses(x, w1, w3, w2, dy) -> np.ndarray:
    """L[n, f]: what hidden unit f adds to Σ_k dy[n, k]·y[n, k]; works in complex arithmetic."""
    h1 = np.einsum("nd,df->nf", x, w1)
    h3 = np.einsum("nd,df->nf", x, w3)
    g = h1 / (1.0 + np.exp(-h1)) * h3
    return g * np.einsum("nk,fk->nf", dy, w2)


def expected_forward(x, w1, w3, w2, tp) -> list[np.ndarray]:
    """y_r as a sum of one outer product per hidden unit of rank r."""
    h1, h3 = x @ w1, x @ w3
    g = h1 / (1.0 + np.exp(-h1)) * h3
    parts = []
    for owned in units(w1.shape[1], tp):
        part = np.zeros((x.shape[0], w2.shape[1]))
        for f in owned:
            part = part + np.outer(g[:, f], w2[f])
        parts.append(part)
    return parts


def expected_backward(x, w1, w3, w2, dy, tp) -> tuple[list[np.ndarray], ...]:
    N, D = x.shape
    F = w1.shape[1]
    cx, c1, c3, c2, cdy = (a.astype(complex) for a in (x, w1, w3, w2, dy))
    dx_units = np.empty((N, F, D))  # dx_units[n, f, j]: ∂L[n, f]/∂x[n, j]
    dw1, dw3, dw2 = np.empty((D, F)), np.empty((D, F)), np.empty((F, D))
    for j in range(D):
        nudged = cx.copy()
        nudged[:, j] += 1j * H
        dx_units[:, :, j] = unit_losses(nudged, c1, c3, c2, cdy).imag / H
        nudged = c1.copy()
        nudged[j, :] += 1j * H
        dw1[j] = unit_losses(cx, nudged, c3, c2, cdy).sum(axis=0).imag / H
        nudged = c3.copy()
        nudged[j, :] += 1j * H
        dw3[j] = unit_losses(cx, c1, nudged, c2, cdy).sum(axis=0).imag / H
        nudged = c2.copy()
        nudged[:, j] += 1j * H
        dw2[:, j] = unit_losses(cx, c1, c3, nudged, cdy).sum(axis=0).imag / H
    owned = units(F, tp)
    return (
        [dx_units[:, f, :].sum(axis=1) for f in owned],
        [dw1[:, f] for f in owned],
        [dw3[:, f] for f in owned],
        [dw2[f, :] for f in owned],
    )


# --------------------------------------------------------------------------- comparing


#: The section's comparison: np.allclose(got, want, rtol=1e-9, atol=1e-12).
TOLERANCE = {"rtol": 1e-9, "atol": 1e-12}


def expect_list(got: Any, want: list[np.ndarray], name: str, case: str, hint: str = "form") -> None:
    """A Python list of len(want) float64 arrays of the expected shapes, then close to them."""
    if not isinstance(got, list):
        kind = "a tuple" if isinstance(got, tuple) else describe(got)
        fail(f"{name} ({case}) should be a Python list of {len(want)} arrays, one per rank, got {kind}", hint=hint)
    if len(got) != len(want):
        fail(f"{name} ({case}) should hold {len(want)} arrays, one per rank; it holds {len(got)}", hint=hint)
    for r, (part, w) in enumerate(zip(got, want, strict=True)):
        if not isinstance(part, np.ndarray) or part.shape != w.shape or part.dtype != np.float64:
            expect_array(part, w, what=f"{name}[{r}] ({case})", dtype=np.float64, hint=hint)
    for r, (part, w) in enumerate(zip(got, want, strict=True)):
        expect_array(part, w, what=f"{name}[{r}] ({case})", **TOLERANCE)


def expect_backward(got: Any, want: tuple, case: str) -> None:
    parts = expect_sequence(got, 4, what=f"the return value of the backward ({case})", hint="form")
    if not isinstance(got, tuple):
        fail(f"the return value of the backward ({case}) should be a tuple of four lists, got a list", hint="form")
    for name, part, w in zip(GRAD_NAMES, parts, want, strict=True):
        expect_list(part, w, name, case)


Case = tuple[np.ndarray, ...]


def random_case(rng: np.random.Generator, N: int, D: int, F: int, limit: float = 6.0) -> Case:
    """x, W1, W3, W2, dy, with abs(x W1) kept at most `limit`."""
    x = rng.normal(size=(N, D))
    w1 = rng.normal(size=(D, F))
    peak = float(np.abs(x @ w1).max())
    if peak > limit:
        w1 = w1 * (limit / peak)
    return x, w1, rng.normal(size=(D, F)), rng.normal(size=(F, D)), rng.normal(size=(N, D))


def forward_cases(student: Student, cases: list[tuple[Case, int, str]]) -> None:
    results = student.tp_mlp_forward.each([(x, w1, w3, w2, tp) for (x, w1, w3, w2, _), tp, _ in cases])
    for (case, tp, what), got in zip(cases, results, strict=True):
        expect_list(got, expected_forward(*case[:4], tp), "the partial outputs", what)


def backward_cases(student: Student, cases: list[tuple[Case, int, str]]) -> None:
    results = student.tp_mlp_backward.each([(*case, tp) for case, tp, _ in cases])
    for (case, tp, what), got in zip(cases, results, strict=True):
        expect_backward(got, expected_backward(*case, tp), what)


# The worked example of the statement.
X1, W1_1, W3_1, W2_1, DY1 = (np.array(a, dtype=float) for a in ([[1]], [[0, 2]], [[3, 1]], [[5], [7]], [[1]]))
S2 = 1.0 / (1.0 + np.exp(-2.0))  # σ(2)


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement: the forward partials", public=True, points=2, hint="partials")
def worked_forward(student: Student) -> None:
    want = [np.array([[0.0]]), np.array([[2.0 * S2 * 1.0 * 7.0]])]
    expect_list(student.tp_mlp_forward(X1, W1_1, W3_1, W2_1, 2), want, "the partial outputs", "the worked example")


@check("The worked example from the statement: the backward of both ranks", public=True, points=2, hint="dx-paths")
def worked_backward(student: Student) -> None:
    silu2, dsilu2 = 2.0 * S2, S2 * (1.0 + 2.0 * (1.0 - S2))
    # Rank 0: h1 = 0, h3 = 3, dg = 5. Rank 1: h1 = 2, h3 = 1, dg = 7.
    want = (
        [np.array([[0.0]]), np.array([[7.0 * dsilu2 * 2.0 + 7.0 * silu2 * 1.0]])],
        [np.array([[5.0 * 3.0 * 0.5]]), np.array([[7.0 * dsilu2]])],
        [np.array([[0.0]]), np.array([[7.0 * silu2]])],
        [np.array([[0.0]]), np.array([[silu2]])],
    )
    expect_backward(student.tp_mlp_backward(X1, W1_1, W3_1, W2_1, DY1, 2), want, "the worked example")


@check("Both functions return lists of tp float64 arrays of the stated shapes", public=True, hint="form")
def return_forms(student: Student, rng: np.random.Generator) -> None:
    x, w1, w3, w2, dy = random_case(rng, 3, 4, 5, limit=3.0)  # F = 5 over 2 ranks: 3 units and 2
    forward, backward = student.tp_mlp_forward(x, w1, w3, w2, 2), student.tp_mlp_backward(x, w1, w3, w2, dy, 2)
    if not isinstance(backward, tuple) or len(backward) != 4:
        fail(f"tp_mlp_backward should return a tuple of four lists, got {describe(backward)}", hint="form")
    names = ("the partial outputs", *GRAD_NAMES)
    wants = (expected_forward(x, w1, w3, w2, 2), *expected_backward(x, w1, w3, w2, dy, 2))
    for name, want, got in zip(names, wants, [forward, *backward], strict=True):
        if not isinstance(got, list) or len(got) != len(want):
            fail(f"{name} should be a Python list of 2 arrays (tp = 2), got {describe(got)}", hint="form")
        for r, (part, w) in enumerate(zip(got, want, strict=True)):
            if not isinstance(part, np.ndarray) or part.shape != w.shape or part.dtype != np.float64:
                expect_array(part, w, what=f"{name}[{r}]", dtype=np.float64, hint="form")


@check("Random shapes and rank counts: the forward partials", hint="partials")
def forward_random(student: Student, rng: np.random.Generator) -> None:
    shapes = [(4, 3, 6, 2), (2, 5, 7, 3), (3, 4, 4, 4), (1, 2, 5, 1), (5, 6, 9, 4), (3, 3, 8, 3), (2, 1, 3, 2)]
    cases = [(random_case(rng, N, D, F), tp, f"case {k} of {len(shapes)}: N={N}, D={D}, F={F}, tp={tp}")
             for k, (N, D, F, tp) in enumerate(shapes, start=1)]  # fmt: skip
    forward_cases(student, cases)


@check("Random shapes and rank counts: the gradients on every rank", hint="all-reduce-backward")
def backward_random(student: Student, rng: np.random.Generator) -> None:
    shapes = [(4, 3, 6, 2), (2, 5, 7, 3), (3, 4, 4, 4), (1, 2, 5, 1), (5, 6, 9, 4), (3, 3, 8, 3), (2, 1, 3, 2)]
    cases = [(random_case(rng, N, D, F), tp, f"case {k} of {len(shapes)}: N={N}, D={D}, F={F}, tp={tp}")
             for k, (N, D, F, tp) in enumerate(shapes, start=1)]  # fmt: skip
    backward_cases(student, cases)


@check("F not a multiple of tp: the first F mod tp ranks own one unit more", hint="layout")
def uneven_split(student: Student, rng: np.random.Generator) -> None:
    shapes = [(3, 4, 7, 3), (2, 3, 5, 4), (2, 2, 10, 4), (3, 5, 11, 6)]
    cases = [(random_case(rng, N, D, F), tp, f"uneven case {k} of {len(shapes)}: F={F} over tp={tp}")
             for k, (N, D, F, tp) in enumerate(shapes, start=1)]  # fmt: skip
    forward_cases(student, cases)
    backward_cases(student, cases)


@check("The partials add up to the unsharded MLP, whatever tp is", hint="all-reduce-backward")
def parts_add_up(student: Student, rng: np.random.Generator) -> None:
    x, w1, w3, w2, dy = random_case(rng, 3, 4, 6)
    counts = [1, 2, 3, 4, 6]
    forwards = student.tp_mlp_forward.each([(x, w1, w3, w2, tp) for tp in counts])
    backwards = student.tp_mlp_backward.each([(x, w1, w3, w2, dy, tp) for tp in counts])
    (y,) = expected_forward(x, w1, w3, w2, 1)
    (dx,), *_ = expected_backward(x, w1, w3, w2, dy, 1)
    for tp, parts, grads in zip(counts, forwards, backwards, strict=True):
        expect_list(parts, expected_forward(x, w1, w3, w2, tp), "the partial outputs", f"tp={tp}")
        total = sum(parts)
        expect_array(total, y, what=f"the sum of the {tp} partial outputs", **TOLERANCE)
        dx_parts = expect_sequence(grads, 4, what=f"the gradients (tp={tp})", hint="form")[0]
        if isinstance(dx_parts, list) and len(dx_parts) == tp and all(isinstance(a, np.ndarray) for a in dx_parts):
            summed = sum(dx_parts)
            if tp > 1 and getattr(summed, "shape", None) == dx.shape and np.allclose(summed, tp * dx, rtol=1e-6):
                fail(
                    f"with tp={tp}, the dx parts add up to tp times dx: each rank returns the already "
                    "summed dx, so the backward all-reduce counts it tp times",
                    hint="all-reduce-backward",
                )
        expect_backward(grads, expected_backward(x, w1, w3, w2, dy, tp), f"tp={tp}")


@check("Pre-activations up to ±30: silu and its derivative in their tails", hint="silu-derivative")
def large_preactivations(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k, (N, D, F, tp) in enumerate([(4, 3, 5, 2), (3, 2, 6, 3)], start=1):
        x, w1, w3, w2, dy = random_case(rng, N, D, F, limit=30.0)
        w1 = w1 * (30.0 / float(np.abs(x @ w1).max()))  # the largest abs(x W1) is exactly 30
        cases.append(((x, w1, w3, w2, dy), tp, f"large case {k} of 2: pre-activations far into both tails"))
    forward_cases(student, cases)
    backward_cases(student, cases)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    x, w1, w3, w2, dy = random_case(rng, 3, 4, 5)
    # The same arrays for two calls in one crossing: a call that changes its arguments in place
    # changes what the second call sees.
    first, second = student.tp_mlp_backward.each([(x, w1, w3, w2, dy, 2), (x, w1, w3, w2, dy, 2)])
    want = expected_backward(x, w1, w3, w2, dy, 2)
    expect_backward(first, want, "the first of two calls on the same arrays")
    expect_backward(second, want, "the second of two calls on the same arrays")
    y1, y2 = student.tp_mlp_forward.each([(x, w1, w3, w2, 3), (x, w1, w3, w2, 3)])
    want_y = expected_forward(x, w1, w3, w2, 3)
    expect_list(y1, want_y, "the partial outputs", "the first of two calls on the same arrays")
    expect_list(y2, want_y, "the partial outputs", "the second of two calls on the same arrays")
