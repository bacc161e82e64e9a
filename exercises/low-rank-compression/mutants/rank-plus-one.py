import numpy as np


def low_rank(w, rank):
    U, s, Vt = np.linalg.svd(w, full_matrices=False)
    A = U[:, : rank + 1] * s[: rank + 1]
    B = Vt[: rank + 1]
    return A, B


def compression_ratio(m, n, rank):
    return m * n / (rank * (m + n))
