"""Mistake: divides the scores by √D, the embedding size (x_t's length), instead of √d, the head size.
Expect: the scores are scaled by the wrong factor when D ≠ d; divide by √d, the size of q.
"""

import numpy as np


def window_attend_step(x_t, cache, p, window):
    n = cache["n"]
    q = x_t @ p["Wq"]
    k = x_t @ p["Wk"]
    v = x_t @ p["Wv"]
    new_k = cache["k"].copy()
    new_v = cache["v"].copy()
    new_k[n % window] = k
    new_v[n % window] = v
    valid = min(n + 1, window)
    scores = new_k[:valid] @ q / np.sqrt(x_t.shape[0])
    weights = np.exp(scores - scores.max())
    weights = weights / weights.sum()
    return weights @ new_v[:valid], {"k": new_k, "v": new_v, "n": n + 1}
