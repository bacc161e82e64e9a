"""Mistake: always attends over all W slots, including the never-written zero slots before the window fills.
Expect: the empty slots (zero keys and values) get weight before the window is full; attend over min(n + 1, W) slots.
"""

import numpy as np


def window_attend_step(x_t, cache, p, window):
    n = cache["n"]
    q = x_t @ p["Wq"]
    k = x_t @ p["Wk"]
    v = x_t @ p["Wv"]
    keys = cache["k"].copy()
    values = cache["v"].copy()
    keys[n % window] = k
    values[n % window] = v
    scores = keys @ q / np.sqrt(len(q))
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values, {"k": keys, "v": values, "n": n + 1}
