# Wrong on purpose: scales the scores by 1/d (the "temperature" misremembered).
import numpy as np


def attend_step(x_t, cache, p):
    Wq, Wk, Wv = p["Wq"], p["Wk"], p["Wv"]
    d = Wq.shape[1]
    keys = np.vstack([cache["k"], x_t @ Wk])
    values = np.vstack([cache["v"], x_t @ Wv])
    scores = keys @ (x_t @ Wq) / d
    scores = np.exp(scores - np.max(scores))
    return (scores / scores.sum()) @ values, dict(k=keys, v=values)


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
