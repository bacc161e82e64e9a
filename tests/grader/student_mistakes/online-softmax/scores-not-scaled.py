"""Mistake: tiled_attention uses the raw scores K q, without dividing them by √d.
Expect: the attention weights are too sharp (the scores are √d times too large); divide the scores by √d.
"""

import numpy as np


def online_softmax_update(state, scores, values):
    m_new = np.maximum(state["m"], scores.max())
    scale = np.exp(state["m"] - m_new)
    e = np.exp(scores - m_new)
    return {"m": m_new, "l": state["l"] * scale + e.sum(), "acc": state["acc"] * scale + e @ values}


def tiled_attention(q, K, V, block_size):
    scores = K @ q
    state = {"m": -np.inf, "l": 0.0, "acc": np.zeros(V.shape[1])}
    for start in range(0, K.shape[0], block_size):
        end = start + block_size
        state = online_softmax_update(state, scores[start:end], V[start:end])
    return state["acc"] / state["l"]
