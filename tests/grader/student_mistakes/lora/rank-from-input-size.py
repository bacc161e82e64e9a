"""Mistake: takes the rank from a.shape[1] (the input size) instead of a.shape[0], the number of rows of A.
Expect: the scale alpha / r uses the wrong r (the input size, not the rank).
"""

import numpy as np  # noqa: F401  (you will need it)


def lora_forward(x, w, a, b, alpha):
    r = a.shape[1]
    scale = alpha / r
    return x @ w.T + scale * ((x @ a.T) @ b.T)


def lora_merge(w, a, b, alpha):
    r = a.shape[1]
    scale = alpha / r
    return w + scale * (b @ a)
