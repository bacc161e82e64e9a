# Wrong on purpose: a softmax written with loops that forgets to divide the scores by sqrt(d).
import math

import numpy as np


def attend_step(x_t, cache, p):
    q, k, v = x_t @ p["Wq"], x_t @ p["Wk"], x_t @ p["Wv"]
    keys = np.vstack([cache["k"], k])
    values = np.vstack([cache["v"], v])
    scores = [float(np.dot(row, q)) for row in keys]
    top = max(scores)
    weights = [math.exp(s - top) for s in scores]
    total = sum(weights)
    out = np.zeros(values.shape[1])
    for w, row in zip(weights, values):
        out += (w / total) * row
    return out, {"k": keys, "v": values}


def kv_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value):
    return 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
