import numpy as np


def sample_token(probs, u):
    return int(np.searchsorted(np.cumsum(probs), u, side="right"))


def speculative_accept(draft_tokens, p_draft, p_target, u_accept, u_sample):
    tokens = []
    for i, token in enumerate(draft_tokens):
        if u_accept[i] < min(1.0, p_target[i, token] / p_draft[i, token]):
            tokens.append(int(token))
        else:
            residual = np.maximum(0.0, p_target[i] - p_draft[i])
            tokens.append(sample_token(residual / residual.sum(), u_sample))
            return tokens
    return tokens
