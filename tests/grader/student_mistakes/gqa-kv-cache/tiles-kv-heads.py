"""Mistake: maps query head h to KV head h % G (np.tile), interleaving the groups, instead of h // (H / G).
Expect: the query heads read the wrong KV heads; consecutive heads share a KV head (np.repeat, not np.tile).
"""

import numpy as np


def gqa_attend_step(x_t, cache, p, n_heads, n_kv_heads):
    H, G = n_heads, n_kv_heads
    d = p["Wq"].shape[1] // H
    q = (x_t @ p["Wq"]).reshape(H, d)
    k = (x_t @ p["Wk"]).reshape(G, 1, d)
    v = (x_t @ p["Wv"]).reshape(G, 1, d)
    keys = np.concatenate([cache["k"], k], axis=1)
    values = np.concatenate([cache["v"], v], axis=1)

    # give every query head its KV head
    keys_per_head = np.tile(keys, (H // G, 1, 1))
    values_per_head = np.tile(values, (H // G, 1, 1))

    out = np.zeros((H, d))
    for h in range(H):
        scores = keys_per_head[h] @ q[h] / np.sqrt(d)
        w = np.exp(scores - scores.max())
        w = w / w.sum()
        out[h] = w @ values_per_head[h]
    return out.reshape(-1), {"k": keys, "v": values}
