# Resource: returns a 40 MB array from every call, more than the 32 MB a reply may hold.
import numpy as np


def attend_step(x_t, cache, p):
    big = np.zeros(5_000_000)
    return big, {"k": big, "v": big}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return np.zeros(5_000_000)
