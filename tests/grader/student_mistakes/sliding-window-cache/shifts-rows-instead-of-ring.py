"""Mistake: once the window is full, shifts the rows up (np.roll), dropping row 0, and writes the new token to the last
row instead of overwriting slot n mod W.
Expect: the new cache's slots are in the wrong order (and a ring-buffer cache it is handed loses the wrong token); write
token n to slot n mod W.
"""

import numpy as np


def window_attend_step(x_t, cache, p, window):
    n = cache["n"]
    q = x_t @ p["Wq"]
    k = x_t @ p["Wk"]
    v = x_t @ p["Wv"]
    if n < window:
        keys = cache["k"].copy()
        values = cache["v"].copy()
        keys[n] = k
        values[n] = v
    else:
        keys = np.roll(cache["k"], -1, axis=0)
        values = np.roll(cache["v"], -1, axis=0)
        keys[-1] = k
        values[-1] = v
    m = min(n + 1, window)
    s = keys[:m] @ q / np.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    w = w / w.sum()
    return w @ values[:m], {"k": keys, "v": values, "n": n + 1}
