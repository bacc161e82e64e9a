"""Mistake: divides the scores by the square root of the whole query width H·d instead of the head size d.
Expect: the scores are scaled by the wrong factor (by √H too much); divide by √d, the head size.
"""

import numpy as np


def gqa_attend_step(x_t, cache, p, n_heads, n_kv_heads):
    group = n_heads // n_kv_heads
    q_all = x_t @ p["Wq"]
    d = q_all.shape[0] // n_heads
    q = q_all.reshape(n_heads, d)
    k = (x_t @ p["Wk"]).reshape(n_kv_heads, 1, d)
    v = (x_t @ p["Wv"]).reshape(n_kv_heads, 1, d)
    new_k = np.concatenate([cache["k"], k], axis=1)
    new_v = np.concatenate([cache["v"], v], axis=1)

    outputs = []
    for h in range(n_heads):
        g = h // group
        s = new_k[g] @ q[h] / np.sqrt(q_all.shape[0])
        s = s - np.max(s)
        weights = np.exp(s) / np.sum(np.exp(s))
        outputs.append(weights @ new_v[g])
    return np.concatenate(outputs), {"k": new_k, "v": new_v}
