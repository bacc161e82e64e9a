"""Mistake: ranks the tokens with np.argsort(probs)[::-1], which puts tied tokens higher id first.
Expect: ties are broken the wrong way (the higher id kept); among equal probabilities the lower id ranks first.
"""

import numpy as np


def filter_logits(logits, temperature, top_k, top_p):
    scaled = logits / temperature
    e = np.exp(scaled - scaled.max())
    probs = e / e.sum()
    order = np.argsort(probs, kind="stable")[::-1]

    if 0 < top_k < len(probs):
        probs[order[top_k:]] = 0
        probs = probs / probs.sum()

    if top_p < 1.0:
        csum = np.cumsum(probs[order])
        cut = int(np.searchsorted(csum, top_p)) + 1
        probs[order[cut:]] = 0
        probs = probs / probs.sum()
    return probs


def sample_token(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u, side="right"))
