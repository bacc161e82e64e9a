"""Mistake: multiplies the sizes with np.prod, whose int64 silently wraps around for caches beyond 2^63 bytes.
Expect: large sizes overflow (a wrong or negative byte count); compute with Python integers.
"""

import numpy as np


def attend_step(x_t, cache, p):
    q = x_t @ p["Wq"]
    k = x_t @ p["Wk"]
    v = x_t @ p["Wv"]
    keys = np.vstack([cache["k"], k[None]])
    values = np.vstack([cache["v"], v[None]])
    scores = keys @ q / np.sqrt(len(q))
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values, {"k": keys, "v": values}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return int(np.prod([2, n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value]))
