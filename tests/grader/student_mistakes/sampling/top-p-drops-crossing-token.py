"""Mistake: keeps only the tokens whose running sum (their own probability included) is below top_p, dropping the token
at which the sum reaches top_p.
Expect: one token too few survives top-p (and none at all when the first token alone reaches top_p); keep the first one
that reaches it.
"""

import numpy as np


def filter_logits(logits, temperature, top_k, top_p):
    z = logits / temperature
    probs = np.exp(z - np.max(z))
    probs /= probs.sum()
    order = np.argsort(-probs, kind="stable")
    if 0 < top_k < len(probs):
        probs[order[top_k:]] = 0.0
        probs /= probs.sum()
    if top_p < 1.0:
        cumsum = np.cumsum(probs[order])
        probs[order[cumsum >= top_p]] = 0.0
        probs /= probs.sum()
    return probs


def sample_token(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u, side="right"))
