import numpy as np


def window_attend_step(x_t, cache, p, window):
    n = cache["n"]
    # A queue instead of a ring: every row moves up one place and the new token goes last.
    keys = np.roll(cache["k"], -1, axis=0)
    values = np.roll(cache["v"], -1, axis=0)
    keys[-1] = x_t @ p["Wk"]
    values[-1] = x_t @ p["Wv"]
    seen = min(n + 1, window)
    q = x_t @ p["Wq"]
    scores = keys[window - seen :] @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values[window - seen :], {"k": keys, "v": values, "n": n + 1}
