import numpy as np


def sample_token(probs, u):
    return int(np.argmax(np.cumsum(probs) > u))


def speculative_accept(draft_tokens, p_draft, p_target, u_accept, u_sample):
    tokens = []
    for i, token in enumerate(draft_tokens):
        if u_accept[i] < p_target[i, token] / p_draft[i, token]:
            tokens.append(int(token))
        else:
            residual = np.clip(p_target[i] - p_draft[i], 0.0, None)
            tokens.append(sample_token(residual / residual.sum(), u_sample))
            return tokens
    tokens.append(sample_token(p_target[len(draft_tokens)], u_sample))
    return tokens
