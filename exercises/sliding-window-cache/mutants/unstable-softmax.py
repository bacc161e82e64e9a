import numpy as np


def window_attend_step(x_t, cache, p, window):
    n = cache["n"]
    slot = n % window
    keys = cache["k"].copy()
    values = cache["v"].copy()
    keys[slot] = x_t @ p["Wk"]
    values[slot] = x_t @ p["Wv"]
    seen = min(n + 1, window)
    q = x_t @ p["Wq"]
    scores = keys[:seen] @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores)
    weights /= weights.sum()
    return weights @ values[:seen], {"k": keys, "v": values, "n": n + 1}
