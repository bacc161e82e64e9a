# Resource: returns an integer with 200,000 digits, beyond what JSON (and Python's int-to-str limit) allows.
import numpy as np



def attend_step(x_t, cache, p):
    q, k, v = x_t @ p["Wq"], x_t @ p["Wk"], x_t @ p["Wv"]
    keys = np.vstack([cache["k"], k[None]])
    values = np.vstack([cache["v"], v[None]])
    scores = keys @ q / np.sqrt(q.shape[0])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values, {"k": keys, "v": values}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 7 ** 240_000
