# Wrong on purpose: keeps the newest token first in the cache.
import numpy as np


def attend_step(x_t, cache, p):
    q = x_t @ p["Wq"]
    keys = np.insert(cache["k"], 0, x_t @ p["Wk"], axis=0)
    values = np.insert(cache["v"], 0, x_t @ p["Wv"], axis=0)
    scores = keys @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    return weights @ values / weights.sum(), {"k": keys, "v": values}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
