"""Mistake: lora_merge adds the update into w in place (w += ...) and returns it, changing the frozen weights.
Expect: the merged weights are right but w was modified; return a new array and leave w unchanged.
"""

import numpy as np  # noqa: F401  (you will need it)


def lora_forward(x, w, a, b, alpha):
    r = a.shape[0]
    return x @ w.T + (alpha / r) * (x @ a.T) @ b.T


def lora_merge(w, a, b, alpha):
    r = a.shape[0]
    w += (alpha / r) * (b @ a)
    return w
