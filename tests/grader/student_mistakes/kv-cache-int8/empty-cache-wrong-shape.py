"""Mistake: builds q row by row in a Python list, so an empty cache (t = 0) gives q of shape (0,) instead of (0, d).
Expect: for an empty cache q must still have shape (0, d) (and scale (0, 1)).
"""

import numpy as np


def quantize_rows(x):
    q_rows = []
    scales = []
    for row in x:
        m = np.abs(row).max()
        s = m / 127 if m > 0 else 1.0
        q_rows.append(np.clip(np.round(row / s), -127, 127))
        scales.append(s)
    q = np.array(q_rows, dtype=np.int8)
    scale = np.array(scales, dtype=np.float64).reshape(-1, 1)
    return q, scale


def int8_cache_attend(q_vec, k_q, k_scale, v_q, v_scale):
    keys = k_q.astype(np.float64) * k_scale
    values = v_q.astype(np.float64) * v_scale
    scores = keys @ q_vec / np.sqrt(q_vec.shape[0])
    w = np.exp(scores - scores.max())
    return (w / w.sum()) @ values


def int8_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, scale_bytes):
    return 2 * n_layers * n_kv_heads * n_tokens * (head_dim + scale_bytes)
