import numpy as np


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def tp_mlp_forward(x, w1, w3, w2, tp):
    parts = []
    for cols in np.array_split(np.arange(w1.shape[1]), tp):
        h1 = x @ w1[:, cols]  # column-parallel: this rank's hidden units only
        h3 = x @ w3[:, cols]
        g = h1 * _sigmoid(h1) * h3  # silu(h1) * h3, no communication needed
        parts.append(g @ w2[cols, :])  # row-parallel: a partial sum of y
    return parts


def tp_mlp_backward(x, w1, w3, w2, dy, tp):
    dx_parts, dw1_shards, dw3_shards, dw2_shards = [], [], [], []
    for cols in np.array_split(np.arange(w1.shape[1]), tp):
        a, b, c = w1[:, cols], w3[:, cols], w2[cols, :]
        h1 = x @ a
        h3 = x @ b
        s = _sigmoid(h1)
        silu = h1 * s
        g = silu * h3
        dg = dy @ c.T  # dy is the same on every rank
        dh3 = dg * silu
        dh1 = dg * h3 * s * (1.0 + h1 * (1.0 - s))
        dx_parts.append(dh1 @ a.T + dh3 @ b.T)  # a partial dx: the all-reduce adds them up
        dw1_shards.append(x.T @ dh1)
        dw3_shards.append(x.T @ dh3)
        dw2_shards.append(g.T @ dy)
    return dx_parts, dw1_shards, dw3_shards, dw2_shards
