# Wrong on purpose: the attention weights multiply the keys instead of the values.
import numpy as np


def attend_step(x_t, cache, p):
    K = np.vstack((cache["k"], np.atleast_2d(x_t @ p["Wk"])))
    V = np.vstack((cache["v"], np.atleast_2d(x_t @ p["Wv"])))
    z = K @ (x_t @ p["Wq"]) / np.sqrt(K.shape[1])
    a = np.exp(z - z.max())
    a /= a.sum()
    return a @ K, {"k": K, "v": V}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
