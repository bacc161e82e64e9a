# Wrong on purpose: the textbook softmax, exp(s) / sum(exp(s)), without subtracting the maximum.
import numpy as np


def softmax(s):
    e = np.exp(s)
    return e / e.sum()


def attend_step(x_t, cache, p):
    q = x_t @ p["Wq"]
    keys = np.vstack([cache["k"], x_t @ p["Wk"]])
    values = np.vstack([cache["v"], x_t @ p["Wv"]])
    return softmax(keys @ q / np.sqrt(q.shape[-1])) @ values, {"k": keys, "v": values}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
