"""Mistake: divides the scores by d instead of by √d.
Expect: the scores are scaled by 1/d instead of 1/√d, so the weights come out too flat.
"""

import numpy as np


def attend_step(x_t, cache, p):
    q = x_t @ p["Wq"]
    k = x_t @ p["Wk"]
    v = x_t @ p["Wv"]
    d = q.shape[0]
    keys = np.vstack([cache["k"], k[None]])
    values = np.vstack([cache["v"], v[None]])
    scores = keys @ q / d
    scores = scores - np.max(scores)
    weights = np.exp(scores) / np.sum(np.exp(scores))
    out = weights @ values
    return out, {"k": keys, "v": values}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
