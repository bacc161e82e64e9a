"""Mistake: applies top-k as "keep order[:top_k]" even for top_k = 0, which removes every token (0 / 0 = nan) instead of
keeping them all.
Expect: nan for top_k = 0; top_k = 0 (or ≥ V) keeps every token.
"""

import numpy as np


def filter_logits(logits, temperature, top_k, top_p):
    z = logits / temperature
    probs = np.exp(z - z.max())
    probs /= probs.sum()
    order = np.argsort(-probs, kind="stable")

    kept = np.zeros_like(probs)
    kept[order[:top_k]] = probs[order[:top_k]]
    kept /= kept.sum()

    if top_p < 1.0:
        sorted_probs = kept[order]
        before = np.cumsum(sorted_probs) - sorted_probs
        kept[order[before >= top_p]] = 0.0
        kept /= kept.sum()
    return kept


def sample_token(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u, side="right"))
