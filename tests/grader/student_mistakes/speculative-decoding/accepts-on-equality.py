"""Mistake: accepts a drafted token when u ≤ p/q instead of u < p/q, so u equal to the ratio (or u = 0 with p(t) = 0) is
accepted.
Expect: a tie u = ratio must be a rejection; the comparison is strict.
"""

import numpy as np


def speculative_accept(draft_tokens, p_draft, p_target, u_accept, u_sample):
    result = []
    for i in range(len(draft_tokens)):
        tok = int(draft_tokens[i])
        ratio = p_target[i, tok] / p_draft[i, tok]
        if u_accept[i] <= min(1.0, ratio):
            result.append(tok)
        else:
            r = np.maximum(p_target[i] - p_draft[i], 0.0)
            r = r / r.sum()
            result.append(int(np.searchsorted(np.cumsum(r), u_sample, side="right")))
            return result
    bonus = p_target[len(draft_tokens)]
    result.append(int(np.searchsorted(np.cumsum(bonus), u_sample, side="right")))
    return result
