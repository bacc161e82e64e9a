"""Mistake: runs top-p on the softmax's own probabilities of the tokens top-k kept, without renormalising them first, so
the running sums reach top_p too late and too many tokens are kept.
Expect: top-p keeps too many tokens; renormalise after top-k before adding up the probabilities.
"""

import numpy as np


def filter_logits(logits, temperature, top_k, top_p):
    z = logits / temperature
    z = z - z.max()
    probs = np.exp(z) / np.exp(z).sum()
    order = np.argsort(-probs, kind="stable")

    keep = np.zeros(len(probs), dtype=bool)
    if top_k == 0 or top_k >= len(probs):
        keep[:] = True
    else:
        keep[order[:top_k]] = True

    running = 0.0
    for token in order:
        if not keep[token]:
            continue
        if running >= top_p:
            keep[token] = False
        running += probs[token]

    out = np.where(keep, probs, 0.0)
    return out / out.sum()


def sample_token(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u, side="right"))
