"""Mistake: computes the softmax as exp(s) / sum(exp(s)) without subtracting the maximum score, which overflows for
large scores.
Expect: nan for large scores; subtract the largest score before exponentiating.
"""

import numpy as np


def attend_step(x_t, cache, p):
    q = x_t @ p["Wq"]
    k = x_t @ p["Wk"]
    v = x_t @ p["Wv"]
    keys = np.vstack([cache["k"], k[None]])
    values = np.vstack([cache["v"], v[None]])
    scores = np.array([q @ key for key in keys]) / np.sqrt(len(q))
    weights = np.exp(scores) / np.exp(scores).sum()
    out = np.zeros(len(v))
    for w_i, v_i in zip(weights, values):
        out += w_i * v_i
    return out, {"k": keys, "v": values}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
