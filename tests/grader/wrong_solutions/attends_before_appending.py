# Wrong on purpose: attends over the cache first and appends the new token only afterwards.
import numpy as np


def attend_step(x_t, cache, p):
    q = x_t @ p["Wq"]
    d = q.shape[0]
    if len(cache["k"]):
        s = cache["k"] @ q / np.sqrt(d)
        w = np.exp(s - s.max())
        out = (w / w.sum()) @ cache["v"]
    else:
        out = x_t @ p["Wv"]  # nothing cached yet: the token itself
    new_cache = {
        "k": np.vstack([cache["k"], x_t @ p["Wk"]]),
        "v": np.vstack([cache["v"], x_t @ p["Wv"]]),
    }
    return out, new_cache


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
