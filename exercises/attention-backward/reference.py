import numpy as np


def sdpa_backward(q, k, v, dout, causal):
    Tq, d = q.shape
    Tk = k.shape[0]
    scale = 1.0 / np.sqrt(d)
    s = q @ k.T * scale
    if causal:
        hidden = np.arange(Tk) > np.arange(Tq)[:, None] + (Tk - Tq)
        s = np.where(hidden, -np.inf, s)
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p = p / p.sum(axis=1, keepdims=True)
    out = p @ v

    dv = p.T @ dout
    dp = dout @ v.T
    delta = (dout * out).sum(axis=1, keepdims=True)
    ds = p * (dp - delta)
    dq = ds @ k * scale
    dk = ds.T @ q * scale
    return dq, dk, dv
