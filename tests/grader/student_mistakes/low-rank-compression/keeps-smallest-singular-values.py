"""Mistake: keeps the last `rank` singular triplets, the smallest ones, believing the SVD sorts them in increasing
order.
Expect: the rank smallest singular values were kept; keep the largest (the first ones numpy returns).
"""

import numpy as np


def low_rank(w, rank):
    U, s, Vt = np.linalg.svd(w, full_matrices=False)
    A = U[:, -rank:] @ np.diag(s[-rank:])
    B = Vt[-rank:, :]
    return A, B


def compression_ratio(m, n, rank):
    return float(m * n) / float(rank * (m + n))
