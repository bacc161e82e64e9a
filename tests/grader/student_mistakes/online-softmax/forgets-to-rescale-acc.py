"""Mistake: rescales the running sum l by e^(m − m') when the maximum rises, but not the accumulator acc.
Expect: acc is wrong after a block raises the max (l and m are right); rescale acc by the same factor.
"""

import numpy as np


def online_softmax_update(state, scores, values):
    m_new = max(state["m"], np.max(scores))
    correction = np.exp(state["m"] - m_new)
    p = np.exp(scores - m_new)
    l_new = state["l"] * correction + p.sum()
    acc_new = state["acc"] + p @ values
    return {"m": m_new, "l": l_new, "acc": acc_new}


def tiled_attention(q, K, V, block_size):
    d = q.shape[0]
    scores = K @ q / np.sqrt(d)
    state = {"m": -np.inf, "l": 0.0, "acc": np.zeros(V.shape[1])}
    for start in range(0, len(scores), block_size):
        state = online_softmax_update(state, scores[start : start + block_size], V[start : start + block_size])
    return state["acc"] / state["l"]
