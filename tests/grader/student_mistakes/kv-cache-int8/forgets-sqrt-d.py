"""Mistake: scores the keys with the plain dot product q · k̂, without dividing by √d.
Expect: the scores are √d times too large (the weights too sharp); divide by √d.
"""

import numpy as np


def quantize_rows(x):
    scale = np.ones((x.shape[0], 1))
    if x.shape[0] > 0:
        absmax = np.abs(x).max(axis=1, keepdims=True)
        scale = np.where(absmax > 0, absmax / 127, 1.0)
    q = np.clip(np.round(x / scale), -127, 127).astype(np.int8)
    return q, scale


def int8_cache_attend(q_vec, k_q, k_scale, v_q, v_scale):
    k_hat = k_q.astype(np.float64) * k_scale
    v_hat = v_q.astype(np.float64) * v_scale
    scores = k_hat @ q_vec
    scores = scores - scores.max()
    weights = np.exp(scores)
    weights = weights / weights.sum()
    return weights @ v_hat


def int8_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, scale_bytes):
    return 2 * n_layers * n_kv_heads * n_tokens * (head_dim + scale_bytes)
