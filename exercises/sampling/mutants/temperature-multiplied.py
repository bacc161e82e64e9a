import numpy as np


def filter_logits(logits, temperature, top_k, top_p):
    z = logits * temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    order = np.argsort(-probs, kind="stable")  # most probable first, ties by lower token id
    if top_k > 0:
        probs[order[top_k:]] = 0.0
        probs /= probs.sum()
    if top_p < 1.0:
        cumulative = np.cumsum(probs[order])
        n_keep = np.searchsorted(cumulative, top_p) + 1  # up to the first token that reaches top_p
        probs[order[n_keep:]] = 0.0
        probs /= probs.sum()
    return probs


def sample_token(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u, side="right"))
