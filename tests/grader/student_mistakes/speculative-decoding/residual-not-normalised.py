"""Mistake: samples the replacement from max(0, p − q) without dividing it by its sum, so the running sums stop short of
1.
Expect: the replacement token is drawn from an unnormalised residual (wrong token, or an id past the vocabulary);
normalise r.
"""

import numpy as np


def sample_token(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u, side="right"))


def speculative_accept(draft_tokens, p_draft, p_target, u_accept, u_sample):
    out = []
    for i, token in enumerate(draft_tokens):
        p = p_target[i, token]
        q = p_draft[i, token]
        if u_accept[i] < min(1.0, p / q):
            out.append(int(token))
        else:
            residual = np.maximum(0.0, p_target[i] - p_draft[i])
            out.append(sample_token(residual, u_sample))
            return out
    out.append(sample_token(p_target[len(draft_tokens)], u_sample))
    return out
