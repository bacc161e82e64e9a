"""Mistake: stores the new keys and values into the cache dict it was given and returns that same dict, so the caller's
cache grows too.
Expect: the cache passed in was modified; build a new dict and leave the given one unchanged.
"""

import numpy as np


def attend_step(x_t, cache, p):
    q = x_t @ p["Wq"]
    k = x_t @ p["Wk"]
    v = x_t @ p["Wv"]
    cache["k"] = np.vstack([cache["k"], k[None]])
    cache["v"] = np.vstack([cache["v"], v[None]])
    s = cache["k"] @ q / np.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    w /= w.sum()
    return w @ cache["v"], cache


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
