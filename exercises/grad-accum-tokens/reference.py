import numpy as np


def loss_scales(n_tokens):
    W = len(n_tokens)
    N = sum(sum(row) for row in n_tokens)  # every target token of the step, on every rank
    if N == 0:
        return [[0.0 for _ in row] for row in n_tokens]
    # W·n/N: the token share of the micro-batch, times W to undo DDP's average over ranks.
    return [[W * n / N for n in row] for row in n_tokens]


def accumulate(micro_grads, n_tokens):
    W = len(n_tokens)
    scales = loss_scales(n_tokens)
    P = len(micro_grads[0][0])
    total = np.zeros(P)
    for r in range(W):
        # Rank r's backward passes add into its .grad, one micro-batch at a time.
        rank_grad = np.zeros(P)
        for j in range(len(n_tokens[r])):
            if n_tokens[r][j] > 0:  # a micro-batch without tokens has a NaN mean: skip it
                rank_grad = rank_grad + scales[r][j] * micro_grads[r][j]
        total = total + rank_grad
    # DDP's all-reduce averages the ranks' gradients.
    return total / W
