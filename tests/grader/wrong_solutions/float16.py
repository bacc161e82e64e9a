# Wrong on purpose: does all the arithmetic in half precision ("to save memory").
import numpy as np


def attend_step(x_t, cache, p):
    dt = np.float16
    W = {name: w.astype(dt) for name, w in p.items()}
    x = np.asarray(x_t, dtype=dt)
    q = x @ W["Wq"]
    k = x @ W["Wk"]
    v = x @ W["Wv"]
    K = np.concatenate([cache["k"].astype(dt), k.reshape(1, -1)], axis=0)
    V = np.concatenate([cache["v"].astype(dt), v.reshape(1, -1)], axis=0)
    s = (K @ q) / dt(np.sqrt(len(q)))
    e = np.exp(s - np.max(s))
    return (e / np.sum(e)) @ V, {"k": K, "v": V}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
