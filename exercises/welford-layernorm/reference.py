import numpy as np


def welford_merge(a, b):
    na, mean_a, m2_a = a
    nb, mean_b, m2_b = b
    n = na + nb
    if n == 0:
        return (0, 0.0, 0.0)  # two empty states: nothing to divide by
    delta = mean_b - mean_a
    mean = mean_a + delta * nb / n
    m2 = m2_a + m2_b + delta * delta * na * nb / n
    return (int(n), float(mean), float(m2))


def block_state(v):
    """(count, mean, m2) of one block, in two passes: its mean, then the squared deviations from it."""
    mean = v.mean()
    return (len(v), float(mean), float(((v - mean) ** 2).sum()))


def layernorm_blocked(x, gamma, beta, eps, block):
    R, d = x.shape
    mean = np.empty(R)
    rstd = np.empty(R)
    for r in range(R):
        states = [block_state(x[r, start : start + block]) for start in range(0, d, block)]
        state = (0, 0.0, 0.0)  # the empty state
        for s in states:  # left to right
            state = welford_merge(state, s)
        _, mean[r], m2 = state
        rstd[r] = 1.0 / np.sqrt(m2 / d + eps)  # the biased variance m2 / d
    y = (x - mean[:, None]) * rstd[:, None] * gamma + beta
    return y, mean, rstd
