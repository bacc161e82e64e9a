import numpy as np  # noqa: F401  (you will need it)


def welford_merge(a, b):
    """Merge two statistics states (count, mean, m2) into the state of both sets together.

    count is an int >= 0, mean a float, m2 the sum of squared deviations from the mean (a float).
    The empty state is (0, 0.0, 0.0). Returns (count, mean, m2) as (int, float, float).
    """
    raise NotImplementedError("n = na + nb, delta = mean_b - mean_a, then the mean and m2")


def layernorm_blocked(x, gamma, beta, eps, block):
    """LayerNorm over the last axis, its statistics computed block by block and merged.

    x: (R, d). gamma, beta: (d,). eps: a float >= 0. block: an int >= 1, the block length.
    Returns (y, mean, rstd): y of shape (R, d), mean and rstd of shape (R,), all float64.
    """
    raise NotImplementedError
