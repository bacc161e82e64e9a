import numpy as np


def rmsnorm(u, w, eps):
    return u / np.sqrt(np.mean(u**2, axis=-1, keepdims=True) + eps) * w


def attention(u, params, n_heads):
    T, D = u.shape
    dh = D // n_heads
    q, k, v = u @ params["wq"], u @ params["wk"], u @ params["wv"]
    future = np.triu(np.ones((T, T), dtype=bool), k=1)  # key s > query t
    heads = np.empty_like(q)
    for i in range(n_heads):
        cols = slice(i * dh, (i + 1) * dh)
        scores = np.where(future, -np.inf, q[:, cols] @ k[:, cols].T / np.sqrt(dh))
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        heads[:, cols] = (weights / weights.sum(axis=-1, keepdims=True)) @ v[:, cols]
    return heads @ params["wo"]


def mlp(u, params):
    gate = u @ params["w_gate"]
    return (gate / (1 + np.exp(-gate)) * (u @ params["w_up"])) @ params["w_down"]


def prenorm_block(x, params, n_heads, eps):
    h = x + attention(rmsnorm(x, params["attn_norm"], eps), params, n_heads)
    return h + mlp(rmsnorm(h, params["mlp_norm"], eps), params)
