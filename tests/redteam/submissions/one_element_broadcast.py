# Lying shape: returns (1,)-shaped arrays everywhere, which would broadcast against any expected shape.
import numpy as np


def attend_step(x_t, cache, p):
    v = x_t @ p["Wv"]
    return np.array([v.mean()]), {"k": np.array([0.0]), "v": np.array([0.0])}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return np.array([2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value])
