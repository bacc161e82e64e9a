import numpy as np


def online_softmax_update(state, scores, values):
    m = max(state["m"], scores.max())
    rescale = np.exp(m - state["m"])
    weights = np.exp(scores - m)
    return {
        "m": m,
        "l": state["l"] * rescale + weights.sum(),
        "acc": state["acc"] * rescale + weights @ values,
    }


def tiled_attention(q, K, V, block_size):
    scores = K @ q / np.sqrt(len(q))
    state = {"m": -np.inf, "l": 0.0, "acc": np.zeros(V.shape[1])}
    for start in range(0, len(scores), block_size):
        stop = start + block_size
        state = online_softmax_update(state, scores[start:stop], V[start:stop])
    return state["acc"] / state["l"]
