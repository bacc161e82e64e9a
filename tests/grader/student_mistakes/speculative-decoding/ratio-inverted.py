"""Mistake: accepts a drafted token with probability min(1, q(t) / p(t)), the draft's over the target's, instead of p(t)
/ q(t).
Expect: the acceptance ratio is upside down; accept when u < p_target(t) / p_draft(t).
"""

import numpy as np


def sample(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u, side="right"))


def speculative_accept(draft_tokens, p_draft, p_target, u_accept, u_sample):
    k = len(draft_tokens)
    emitted = []
    for i in range(k):
        t = int(draft_tokens[i])
        ratio = p_draft[i, t] / p_target[i, t] if p_target[i, t] > 0 else 0.0
        if u_accept[i] < min(1.0, ratio):
            emitted.append(t)
        else:
            residual = np.maximum(p_target[i] - p_draft[i], 0.0)
            emitted.append(sample(residual / residual.sum(), u_sample))
            return emitted
    emitted.append(sample(p_target[k], u_sample))
    return emitted
