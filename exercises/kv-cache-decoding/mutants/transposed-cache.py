import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value


def attend_step(x_t, cache, p):
    q, k, v = x_t @ p["Wq"], x_t @ p["Wk"], x_t @ p["Wv"]
    d = q.shape[0]
    old_k = cache["k"] if cache["k"].shape[0] == d and cache["k"].ndim == 2 else cache["k"].T
    old_v = cache["v"] if cache["v"].shape[0] == d and cache["v"].ndim == 2 else cache["v"].T
    keys = np.hstack([old_k, k[:, None]])
    values = np.hstack([old_v, v[:, None]])
    scores = q @ keys / np.sqrt(d)
    w = np.exp(scores - scores.max())
    return values @ (w / w.sum()), {"k": keys, "v": values}
