import numpy as np  # noqa: F401  (you will need it)


def low_rank(w, rank):
    """The best rank-`rank` approximation of w, as two factors.

    w: float64 array of shape (m, n); 1 <= rank <= min(m, n).
    Returns (A, B): A float64 of shape (m, rank), B float64 of shape (rank, n), with A @ B as close
    to w as a matrix of rank `rank` can be.
    """
    raise NotImplementedError("truncate the singular value decomposition of w")


def compression_ratio(m, n, rank):
    """How many times fewer numbers A and B hold than w: m·n / (rank·(m + n)), as a float."""
    raise NotImplementedError
