import numpy as np


def gqa_attend_step(x_t, cache, p, n_heads, n_kv_heads):
    d = p["Wq"].shape[1] // n_heads
    q = (x_t @ p["Wq"]).reshape(n_heads, d)
    k = (x_t @ p["Wk"]).reshape(n_kv_heads, 1, d)
    v = (x_t @ p["Wv"]).reshape(n_kv_heads, 1, d)
    keys = np.concatenate([cache["k"], k], axis=1)
    values = np.concatenate([cache["v"], v], axis=1)
    group = n_heads // n_kv_heads
    kv = np.arange(n_heads) // group
    scores = np.einsum("hd,htd->ht", q, keys[kv]) / np.sqrt(d)
    weights = np.exp(scores - scores.max(axis=0, keepdims=True))
    weights /= weights.sum(axis=0, keepdims=True)
    out = np.einsum("ht,htd->hd", weights, values[kv])
    return out.reshape(-1), {"k": keys, "v": values}
