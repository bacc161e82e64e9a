"""Mistake: treats numpy's Vt as V and takes its first columns, transposed, as V_rᵀ, instead of Vt's first rows.
Expect: B holds the wrong right-singular vectors; Vt is already Vᵀ, so V_rᵀ is Vt[:rank].
"""

import numpy as np


def low_rank(w, rank):
    U, S, V = np.linalg.svd(w, full_matrices=False)
    A = U[:, :rank] * S[:rank]
    B = V[:, :rank].T
    return A, B


def compression_ratio(m, n, rank):
    return m * n / (rank * (m + n))
