"""Mistake: sorts the weights by their signed value instead of their magnitude, so large negative weights are removed
first.
Expect: the most negative weights were pruned instead of the smallest |w|; sort by np.abs(w).
"""

import numpy as np


def magnitude_prune(w, sparsity, per_row):
    rows, cols = w.shape
    groups = w if per_row else w.reshape(1, rows * cols)
    n = groups.shape[1]
    k = int(np.floor(sparsity * n))
    order = np.argsort(groups, axis=1, kind="stable")
    mask = np.ones(groups.shape, dtype=bool)
    for i in range(groups.shape[0]):
        mask[i, order[i, :k]] = False
    mask = mask.reshape(rows, cols)
    return w * mask, mask
