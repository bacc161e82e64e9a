"""Mistake: samples the first token whose running sum is ≥ u (searchsorted's default side="left") instead of strictly
greater, so u = 0 or a u equal to a running sum can return a token of probability 0.
Expect: a zero-probability token was drawn; take the smallest i with cumsum > u (side="right").
"""

import numpy as np


def filter_logits(logits, temperature, top_k, top_p):
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs = probs / probs.sum()
    ranking = np.argsort(-probs, kind="stable")
    if top_k > 0:
        probs[ranking[top_k:]] = 0.0
        probs = probs / probs.sum()
    if top_p < 1.0:
        total = 0.0
        for i in ranking:
            if total >= top_p:
                probs[i] = 0.0
            total += probs[i]
        probs = probs / probs.sum()
    return probs


def sample_token(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u))
