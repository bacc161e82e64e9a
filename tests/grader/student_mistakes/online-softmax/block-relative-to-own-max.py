"""Mistake: exponentiates the new block relative to its own maximum instead of the new running maximum m', so its terms
are too large whenever the old maximum is higher.
Expect: a block below the running max is over-weighted; compute the new terms as e^(s' − m') with m' the new running
max.
"""

import numpy as np


def online_softmax_update(state, scores, values):
    block_max = float(np.max(scores))
    m_new = max(state["m"], block_max)
    old_factor = np.exp(state["m"] - m_new)
    weights = np.exp(scores - block_max)
    return {
        "m": m_new,
        "l": state["l"] * old_factor + np.sum(weights),
        "acc": state["acc"] * old_factor + weights @ values,
    }


def tiled_attention(q, K, V, block_size):
    s = (K @ q) / np.sqrt(len(q))
    state = {"m": float("-inf"), "l": 0.0, "acc": np.zeros(V.shape[1])}
    i = 0
    while i < len(s):
        state = online_softmax_update(state, s[i : i + block_size], V[i : i + block_size])
        i += block_size
    return state["acc"] / state["l"]
