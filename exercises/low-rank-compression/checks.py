"""Hidden checks for "Low-Rank Compression with the SVD".

Most test matrices are built from a known decomposition, W = U diag(σ) Vᵀ with orthonormal U and
V from QR factorizations and chosen singular values, so the best rank-r approximation is known
without computing any SVD. Random Gaussian matrices are checked against a projection onto the top
eigenvectors of the Gram matrix WᵀW (``eigh``), another route. Every case keeps a clear gap
between σ_r and σ_{r+1}, so the best approximation is unique. Only the product A @ B is compared:
how the singular values are split between A and B is free.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, compared_as, describe, expect_array, expect_float, expect_sequence, fail

# --------------------------------------------------------------------------- independent reference


def orthonormal(rng: np.random.Generator, rows: int, cols: int) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(rows, cols)))
    return q * np.sign(np.diag(r))


def with_spectrum(rng: np.random.Generator, m: int, n: int, sigmas: list[float]) -> tuple[np.ndarray, Any]:
    """W with the given singular values (in any order), and a function giving its best rank-r approximation."""
    k = len(sigmas)
    U, V, s = orthonormal(rng, m, k), orthonormal(rng, n, k), np.array(sigmas, dtype=np.float64)

    def best(r: int) -> np.ndarray:
        top = np.argsort(-s, kind="stable")[:r]
        return (U[:, top] * s[top]) @ V[:, top].T

    return (U * s) @ V.T, best


def best_by_gram(w: np.ndarray, r: int) -> np.ndarray:
    """W projected onto the r top eigenvectors of WᵀW (or, for a wide W, of WWᵀ)."""
    wide = w.shape[1] > w.shape[0]
    x = w.T if wide else w
    values, vectors = np.linalg.eigh(x.T @ x)  # ascending
    sigmas = np.sqrt(np.clip(values[::-1], 0, None))
    assert r == len(sigmas) or sigmas[r - 1] - sigmas[r] > 1e-3 * sigmas[0], "no clear gap at the rank"
    top = vectors[:, ::-1][:, :r]
    approx = x @ top @ top.T
    return approx.T if wide else approx


# --------------------------------------------------------------------------- comparing answers


@compared_as("low_rank")
def shapes_and_product(answer: Any) -> tuple[Any, Any, np.ndarray]:
    """A and B are unique only up to the signs of singular vector pairs (and a basis of any null space): the
    checks judge their shapes and A @ B, and so does naming a mistake, whatever signs the machine's SVD chose."""
    a, b = answer
    return a.shape, b.shape, a @ b


def expect_factors(result: Any, want: np.ndarray, rank: int, what: str) -> None:
    m, n = want.shape
    A, B = expect_sequence(result, 2, what=f"low_rank's return value ({what})", hint="form")
    for name, value, shape in (("A", A, (m, rank)), ("B", B, (rank, n))):
        if not isinstance(value, np.ndarray) or value.dtype != np.float64:
            fail(f"{name} ({what}) should be a float64 array of shape {shape}, got {describe(value)}", hint="form")
        if value.shape != shape:
            fail(f"{name} ({what}) should have shape {shape}, got shape {value.shape}", hint="shape")
    scale = float(np.abs(want).max()) or 1.0
    expect_array(A @ B, want, what=f"A @ B ({what})", rtol=1e-6, atol=1e-8 * scale)


def compare_all(student: Student, cases: list[tuple[np.ndarray, int, np.ndarray, str]]) -> None:
    """low_rank on every case in one crossing."""
    results = student.low_rank.each([(w, rank) for w, rank, _, _ in cases])
    for (_, rank, want, label), result in zip(cases, results, strict=True):
        expect_factors(result, want, rank, f"{label}, rank {rank}")


def expect_ratio(got: Any, want: float, what: str) -> None:
    """A Python or numpy float (not a 0-d array), close to ``want``."""
    if isinstance(got, bool) or not isinstance(got, (float, np.floating)):
        fail(f"{what} should be a float, got {describe(got)}", hint="ratio-float", expected=want, got=got)
    expect_float(got, want, what=what, rtol=1e-12, atol=0, hint="ratio-float")


WORKED = np.array([[3.0, 1.0], [1.0, 3.0], [0.0, 0.0]])


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    cases = [
        (WORKED, 1, np.array([[2.0, 2.0], [2.0, 2.0], [0.0, 0.0]]), "worked example"),
        (WORKED, 2, WORKED, "worked example"),
    ]
    compare_all(student, cases)
    expect_ratio(student.compression_ratio(3, 2, 1), 1.2, "compression_ratio of the worked example")


@check("A has shape (m, rank) and B (rank, n), both float64", hint="shape")
def output_forms(student: Student) -> None:
    rng = np.random.default_rng(1)
    for (m, n, rank), result in zip(
        ((7, 4, 2), (3, 8, 3)),
        student.low_rank.each([(rng.normal(size=(7, 4)), 2), (rng.normal(size=(3, 8)), 3)]),
        strict=True,
    ):
        what = f"w of shape ({m}, {n}), rank {rank}"
        A, B = expect_sequence(result, 2, what=f"low_rank's return value ({what})", hint="form")
        for name, value, shape in (("A", A, (m, rank)), ("B", B, (rank, n))):
            if not isinstance(value, np.ndarray) or value.shape != shape or value.dtype != np.float64:
                fail(f"{name} ({what}) should be a float64 array of shape {shape}, got {describe(value)}")


@check("Matrices of known singular values, tall, wide and square")
def known_spectrum(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = []
    for m, n, rank in (
        (6, 4, 2),
        (4, 6, 3),
        (10, 10, 5),
        (20, 8, 1),
        (8, 20, 7),
        (30, 25, 10),
        (5, 5, 5),
        (1, 6, 1),
        (6, 1, 1),
    ):
        k = min(m, n)
        sigmas = list(10.0 * 0.6 ** np.arange(k))
        w, best = with_spectrum(rng, m, n, sigmas)
        cases.append((w, rank, best(rank), f"w of shape ({m}, {n})"))
    compare_all(student, cases)


@check("Random Gaussian matrices", hint="largest")
def random_gaussian(student: Student) -> None:
    rng = np.random.default_rng(3)
    cases = []
    for m, n, rank in ((12, 9, 3), (9, 12, 4), (40, 30, 6), (16, 16, 8)):
        w = rng.normal(size=(m, n))
        cases.append((w, rank, best_by_gram(w, rank), f"a Gaussian w of shape ({m}, {n})"))
    compare_all(student, cases)


@check("The largest singular values are kept, wherever they come from", hint="largest")
def largest_kept(student: Student) -> None:
    rng = np.random.default_rng(4)
    cases = []
    for m, n, sigmas, rank in (
        (6, 5, [0.1, 5.0, 1.0, 3.0, 0.5], 2),
        (4, 7, [2.0, 0.01, 9.0, 0.3], 1),
        (8, 8, [1, 2, 3, 4, 5, 6, 7, 8], 3),
    ):
        w, best = with_spectrum(rng, m, n, [float(s) for s in sigmas])
        cases.append((w, rank, best(rank), f"w of shape ({m}, {n})"))
    compare_all(student, cases)


@check("Matrices of lower rank than asked for, and all zeros", hint="rank-deficient")
def rank_deficient(student: Student) -> None:
    rng = np.random.default_rng(5)
    two, _ = with_spectrum(rng, 6, 5, [4.0, 1.5])  # rank 2
    one = np.outer(rng.normal(size=4), rng.normal(size=7))  # rank 1
    zeros = np.zeros((4, 3))
    cases = [
        (two, 2, two, "w of rank 2, shape (6, 5)"),
        (two, 3, two, "w of rank 2, shape (6, 5)"),
        (two, 5, two, "w of rank 2, shape (6, 5)"),
        (one, 2, one, "w of rank 1, shape (4, 7)"),
        (zeros, 2, zeros, "an all-zero w, shape (4, 3)"),
    ]
    compare_all(student, cases)


@check("w is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    rng = np.random.default_rng(6)
    w, best = with_spectrum(rng, 7, 5, [3.0, 2.0, 1.0, 0.5, 0.2])
    # The same array for every call of the batch: a call that changes w changes the next answers.
    compare_all(student, [(w, 1, best(1), "first call"), (w, 3, best(3), "second call"), (w, 1, best(1), "third call")])


@check("compression_ratio on the statement's layers", public=True, hint="ratio")
def ratio_examples(student: Student) -> None:
    cases = [
        ((4096, 4096, 64), 32.0, "a 4096 × 4096 layer at rank 64"),
        ((4096, 11008, 128), 45088768 / 1933312, "a 4096 × 11008 layer at rank 128"),
        ((3, 2, 1), 1.2, "the worked example"),
    ]
    results = student.compression_ratio.each([args for args, *_ in cases])
    for (_, want, layer), got in zip(cases, results, strict=True):
        expect_ratio(got, want, f"compression_ratio of {layer}")


@check("compression_ratio for other sizes, below and above 1", hint="ratio")
def ratio_values(student: Student) -> None:
    named = [
        ((1, 1, 1), "the smallest matrix"),
        ((10, 20, 3), "a wide matrix"),
        ((20, 10, 3), "a tall matrix"),
        ((64, 64, 64), "a square matrix at full rank"),
        ((768, 3072, 700), "a rank close to the matrix's size"),
        ((50257, 768, 32), "an embedding table"),
        ((10**6, 3, 2), "a very tall, thin matrix"),
    ]
    cases = [args for args, _ in named]
    for n_case, ((args, name), got) in enumerate(zip(named, student.compression_ratio.each(cases), strict=True), 1):
        m, n, rank = args
        expect_ratio(got, (m / rank) * (n / (m + n)), f"compression_ratio, case {n_case} of {len(named)} ({name})")
