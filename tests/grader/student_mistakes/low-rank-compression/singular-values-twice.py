"""Mistake: puts the singular values in both factors, A = U_r Σ_r and B = Σ_r V_rᵀ, so A @ B carries Σ².
Expect: the singular values are counted twice; include them once (in A, in B, or √Σ in each).
"""

import numpy as np


def low_rank(w, rank):
    U, s, Vt = np.linalg.svd(w, full_matrices=False)
    A = U[:, :rank] * s[:rank]
    B = s[:rank, None] * Vt[:rank, :]
    return A, B


def compression_ratio(m, n, rank):
    return m * n / (rank * (m + n))
