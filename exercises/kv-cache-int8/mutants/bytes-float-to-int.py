import numpy as np


def quantize_rows(x):
    absmax = np.abs(x).max(axis=1, keepdims=True)
    scale = np.where(absmax > 0, absmax / 127, 1.0)
    q = np.clip(np.round(x / scale), -127, 127).astype(np.int8)
    return q, scale


def int8_cache_attend(q_vec, k_q, k_scale, v_q, v_scale):
    keys = k_q.astype(np.float64) * k_scale
    values = v_q.astype(np.float64) * v_scale
    scores = keys @ q_vec / np.sqrt(q_vec.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values


def int8_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, scale_bytes):
    return int(2.0 * n_layers * n_kv_heads * n_tokens * (head_dim + scale_bytes))
