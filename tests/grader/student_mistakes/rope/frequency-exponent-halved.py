"""Mistake: uses the frequencies base^(−i/d), dropping the factor 2 of the exponent −2i/d.
Expect: every pair after the first turns at the wrong speed; ω_i = base^(−2i/d).
"""

import numpy as np


def rope(x, positions, base):
    d = x.shape[1]
    i = np.arange(d // 2)
    omega = base ** (-i / d)
    theta = positions[:, None] * omega[None, :]
    even = x[:, 0::2]
    odd = x[:, 1::2]
    out = np.empty_like(x)
    out[:, 0::2] = even * np.cos(theta) - odd * np.sin(theta)
    out[:, 1::2] = even * np.sin(theta) + odd * np.cos(theta)
    return out
