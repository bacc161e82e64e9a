import numpy as np


def window_attend_step(x_t, cache, p, window):
    n = cache["n"]
    slot = n % window
    # Writes into the arrays it was given, and counts in the dict it was given.
    keys = cache["k"]
    values = cache["v"]
    keys[slot] = x_t @ p["Wk"]
    values[slot] = x_t @ p["Wv"]
    cache["n"] = n + 1
    seen = min(n + 1, window)
    q = x_t @ p["Wq"]
    scores = keys[:seen] @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values[:seen], cache
