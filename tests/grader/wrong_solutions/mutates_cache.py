# Wrong on purpose: grows the cache it was given, in place, and hands it back.
import numpy as np


def attend_step(x_t, cache, p):
    cache["k"] = np.concatenate([cache["k"], (x_t @ p["Wk"])[np.newaxis, :]])
    cache["v"] = np.concatenate([cache["v"], (x_t @ p["Wv"])[np.newaxis, :]])
    q = x_t @ p["Wq"]
    scores = cache["k"] @ q / np.sqrt(q.size)
    weights = np.exp(scores - scores.max())
    return weights @ cache["v"] / weights.sum(), cache


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
