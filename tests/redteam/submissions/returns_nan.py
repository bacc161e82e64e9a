# Malformed: every value returned is NaN.
import numpy as np


def attend_step(x_t, cache, p):
    d = p["Wq"].shape[1]
    rows = cache["k"].shape[0] + 1
    return np.full(d, np.nan), {"k": np.full((rows, d), np.nan), "v": np.full((rows, d), np.nan)}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return float("nan")
