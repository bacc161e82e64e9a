"""Mistake: dequantizes the values with the keys' scales (k_scale) instead of their own v_scale.
Expect: the values are dequantized with the wrong scales; keys and values each have scales of their own.
"""

import numpy as np


def quantize_rows(x):
    t, d = x.shape
    q = np.zeros((t, d), dtype=np.int8)
    scale = np.ones((t, 1))
    for i in range(t):
        m = np.max(np.abs(x[i])) if d > 0 else 0.0
        if m > 0:
            scale[i, 0] = m / 127
        q[i] = np.clip(np.round(x[i] / scale[i, 0]), -127, 127)
    return q, scale


def int8_cache_attend(q_vec, k_q, k_scale, v_q, v_scale):
    k = k_q * k_scale
    v = v_q * k_scale
    s = k @ q_vec / np.sqrt(len(q_vec))
    s = s - s.max()
    weights = np.exp(s) / np.exp(s).sum()
    return weights @ v


def int8_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, scale_bytes):
    return 2 * n_layers * n_kv_heads * n_tokens * (head_dim + scale_bytes)
