"""Mistake: takes the residual as p − q normalised by its sum, without clipping the negative differences at 0.
Expect: the residual is not clipped at 0 (its sum is 0, giving nan or a nonsense token); use max(0, p − q).
"""

import numpy as np


def sample_token(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u, side="right"))


def speculative_accept(draft_tokens, p_draft, p_target, u_accept, u_sample):
    tokens = []
    k = draft_tokens.shape[0]
    for i in range(k):
        t = draft_tokens[i]
        accept_prob = min(1.0, p_target[i][t] / p_draft[i][t])
        if u_accept[i] < accept_prob:
            tokens.append(int(t))
            continue
        diff = p_target[i] - p_draft[i]
        tokens.append(sample_token(diff / diff.sum(), u_sample))
        return tokens
    tokens.append(sample_token(p_target[k], u_sample))
    return tokens
