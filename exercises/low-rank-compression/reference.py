import numpy as np


def low_rank(w, rank):
    U, s, Vt = np.linalg.svd(w, full_matrices=False)
    A = U[:, :rank] * s[:rank]
    B = Vt[:rank]
    return A, B


def compression_ratio(m, n, rank):
    return m * n / (rank * (m + n))
