"""Mistake: splits q, k and v into heads with reshape(d, heads).T, so a head gets every H-th column instead of its d
consecutive columns.
Expect: the heads are cut from the wrong columns; head h owns columns h·d to (h+1)·d − 1 (reshape(H, d)).
"""

import numpy as np


def gqa_attend_step(x_t, cache, p, n_heads, n_kv_heads):
    H, G = n_heads, n_kv_heads
    d = p["Wq"].shape[1] // H
    # one row per head
    q = (x_t @ p["Wq"]).reshape(d, H).T
    k = (x_t @ p["Wk"]).reshape(d, G).T
    v = (x_t @ p["Wv"]).reshape(d, G).T
    keys = np.concatenate([cache["k"], k[:, None, :]], axis=1)
    values = np.concatenate([cache["v"], v[:, None, :]], axis=1)

    rep_k = np.repeat(keys, H // G, axis=0)
    rep_v = np.repeat(values, H // G, axis=0)
    scores = np.einsum("hd,htd->ht", q, rep_k) / np.sqrt(d)
    scores -= scores.max(axis=1, keepdims=True)
    w = np.exp(scores)
    w /= w.sum(axis=1, keepdims=True)
    out = np.einsum("ht,htd->hd", w, rep_v)
    return out.reshape(H * d), {"k": keys, "v": values}
