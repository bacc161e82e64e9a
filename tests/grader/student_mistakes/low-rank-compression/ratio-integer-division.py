"""Mistake: computes the compression ratio with floor division //, so 6 / 5 becomes 1.
Expect: the ratio is truncated to a whole number; use true division and return a float.
"""

import numpy as np


def low_rank(w, rank):
    U, s, Vt = np.linalg.svd(w, full_matrices=False)
    root = np.sqrt(s[:rank])
    A = U[:, :rank] * root
    B = root[:, None] * Vt[:rank]
    return A, B


def compression_ratio(m, n, rank):
    return float(m * n // (rank * (m + n)))
