"""Mistake: rescales and adds into the given state's acc array in place (acc *= ..., acc += ...), so the caller's state
changes too.
Expect: the returned state is right but the state passed in was modified; build a new acc array.
"""

import numpy as np


def online_softmax_update(state, scores, values):
    m_new = max(state["m"], float(scores.max()))
    factor = np.exp(state["m"] - m_new)
    weights = np.exp(scores - m_new)
    acc = state["acc"]
    acc *= factor
    acc += weights @ values
    return {"m": m_new, "l": state["l"] * factor + weights.sum(), "acc": acc}


def tiled_attention(q, K, V, block_size):
    scores = K @ q / np.sqrt(q.shape[0])
    state = {"m": -np.inf, "l": 0.0, "acc": np.zeros(V.shape[1])}
    for start in range(0, len(scores), block_size):
        state = online_softmax_update(state, scores[start : start + block_size], V[start : start + block_size])
    return state["acc"] / state["l"]
