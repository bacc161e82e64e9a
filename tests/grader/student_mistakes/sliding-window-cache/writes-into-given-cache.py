"""Mistake: writes the new key and value into the cache's own arrays (no copy), changing the cache it was given.
Expect: the outputs are right but the cache passed in was modified; copy the arrays before writing into them.
"""

import numpy as np


def window_attend_step(x_t, cache, p, window):
    n = cache["n"]
    q = x_t @ p["Wq"]
    keys = cache["k"]
    values = cache["v"]
    slot = n % window
    keys[slot] = x_t @ p["Wk"]
    values[slot] = x_t @ p["Wv"]
    used = min(n + 1, window)
    scores = keys[:used] @ q / np.sqrt(q.shape[0])
    scores = scores - scores.max()
    probs = np.exp(scores) / np.sum(np.exp(scores))
    out = probs @ values[:used]
    return out, {"k": keys, "v": values, "n": n + 1}
