"""Mistake: computes the scale with floor division alpha // r, which drops the fraction (1 // 2 = 0).
Expect: the scale alpha / r is truncated to a whole number; use true division.
"""

import numpy as np  # noqa: F401  (you will need it)


def lora_forward(x, w, a, b, alpha):
    rank = a.shape[0]
    scaling = alpha // rank
    low_rank = x @ a.T
    return x @ w.T + scaling * (low_rank @ b.T)


def lora_merge(w, a, b, alpha):
    rank = a.shape[0]
    scaling = alpha // rank
    return w + scaling * (b @ a)
