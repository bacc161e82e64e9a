"""Mistake: scales the low-rank update by alpha alone, forgetting to divide by the rank r.
Expect: the update is r times too large; scale by alpha / r with r = a.shape[0].
"""

import numpy as np  # noqa: F401  (you will need it)


def lora_forward(x, w, a, b, alpha):
    base = x @ w.T
    update = (x @ a.T) @ b.T
    return base + alpha * update


def lora_merge(w, a, b, alpha):
    return w + alpha * (b @ a)
