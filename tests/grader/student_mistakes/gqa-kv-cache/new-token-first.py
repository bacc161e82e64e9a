"""Mistake: puts the new token's key and value in front of the cached rows instead of after them.
Expect: the outputs are right but the new cache has the new token as its first row; it must be the last row.
"""

import numpy as np


def gqa_attend_step(x_t, cache, p, n_heads, n_kv_heads):
    H, G = n_heads, n_kv_heads
    d = p["Wq"].shape[1] // H
    q = (x_t @ p["Wq"]).reshape(H, d)
    k = (x_t @ p["Wk"]).reshape(G, 1, d)
    v = (x_t @ p["Wv"]).reshape(G, 1, d)
    keys = np.concatenate([k, cache["k"]], axis=1)
    values = np.concatenate([v, cache["v"]], axis=1)

    out = np.empty(H * d)
    for h in range(H):
        g = h // (H // G)
        s = keys[g] @ q[h] / np.sqrt(d)
        e = np.exp(s - s.max())
        out[h * d : (h + 1) * d] = (e / e.sum()) @ values[g]
    return out, {"k": keys, "v": values}
