import numpy as np


def chunked_linear_attention(q, k, v, gamma, chunk):
    T, dk = k.shape
    dv = v.shape[1]
    n_chunks = -(-T // chunk)
    out = np.zeros((T, dv))
    states = np.zeros((n_chunks, dk, dv))
    S = np.zeros((dk, dv))  # the state before the current chunk
    for c in range(n_chunks):
        start = c * chunk
        qc, kc, vc = q[start : start + chunk], k[start : start + chunk], v[start : start + chunk]
        L = len(qc)  # the last chunk may be shorter
        i = np.arange(L)
        # Inside the chunk: token i sees token j <= i with weight gamma^(i - j), from the lag alone.
        lag = i[:, None] - i[None, :]
        decay = np.tril(gamma ** np.abs(lag))
        intra = (qc @ kc.T * decay) @ vc
        # Earlier chunks: their state, decayed once more for every step from its last token to token i.
        inter = gamma ** (i + 1)[:, None] * (qc @ S)
        out[start : start + L] = intra + inter
        # The state at the chunk's last token: the old one decayed L times, plus this chunk's keys and values.
        S = gamma**L * S + (gamma ** (L - 1 - i)[:, None] * kc).T @ vc
        states[c] = S
    return out, states
