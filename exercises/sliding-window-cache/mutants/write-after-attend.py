import numpy as np


def window_attend_step(x_t, cache, p, window):
    n = cache["n"]
    seen = min(n + 1, window)
    q = x_t @ p["Wq"]
    # Attends over the old slots: the new key and value are written only afterwards.
    scores = cache["k"][:seen] @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    out = weights @ cache["v"][:seen]
    keys = cache["k"].copy()
    values = cache["v"].copy()
    keys[n % window] = x_t @ p["Wk"]
    values[n % window] = x_t @ p["Wv"]
    return out, {"k": keys, "v": values, "n": n + 1}
