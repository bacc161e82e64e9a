import numpy as np


def gqa_attend_step(x_t, cache, p, n_heads, n_kv_heads):
    d = p["Wq"].shape[1] // n_heads
    group = n_heads // n_kv_heads
    q = (x_t @ p["Wq"]).reshape(n_heads, d)
    k = (x_t @ p["Wk"]).reshape(n_kv_heads, 1, d)
    v = (x_t @ p["Wv"]).reshape(n_kv_heads, 1, d)
    # Repeats the keys and values for every query head, and returns the repeated arrays as the cache.
    keys = np.repeat(np.concatenate([cache["k"], k], axis=1), group, axis=0)
    values = np.repeat(np.concatenate([cache["v"], v], axis=1), group, axis=0)
    scores = np.einsum("hd,htd->ht", q, keys) / np.sqrt(d)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    out = np.einsum("ht,htd->hd", weights, values)
    return out.reshape(-1), {"k": keys, "v": values}
