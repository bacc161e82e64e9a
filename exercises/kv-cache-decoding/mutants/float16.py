import numpy as np


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value


def attend_step(x_t, cache, p):
    # Everything in half precision, as if the weights were stored in float16.
    half = np.float16
    x = x_t.astype(half)
    q, k, v = x @ p["Wq"].astype(half), x @ p["Wk"].astype(half), x @ p["Wv"].astype(half)
    keys = np.vstack([cache["k"].astype(half), k[None]])
    values = np.vstack([cache["v"].astype(half), v[None]])
    scores = keys @ q / np.sqrt(half(q.shape[0]))
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values, {"k": keys, "v": values}
