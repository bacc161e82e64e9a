# Malformed: a correct solution that the test pads with comments to a 3 MB file.
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
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
