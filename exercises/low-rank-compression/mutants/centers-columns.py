import numpy as np


def low_rank(w, rank):
    # Centres the columns first, as for PCA.
    U, s, Vt = np.linalg.svd(w - w.mean(axis=0), full_matrices=False)
    A = U[:, :rank] * s[:rank]
    B = Vt[:rank]
    return A, B


def compression_ratio(m, n, rank):
    return m * n / (rank * (m + n))
