"""Mistake: computes the number to remove with round(sparsity · n) instead of rounding down.
Expect: one weight too many is removed whenever sparsity · n has a fraction above one half; use floor.
"""

import numpy as np


def magnitude_prune(w, sparsity, per_row):
    pruned = w.copy()
    mask = np.ones(w.shape, dtype=bool)
    if per_row:
        k = round(sparsity * w.shape[1])
        order = np.argsort(np.abs(w), axis=1, kind="stable")
        for i in range(w.shape[0]):
            mask[i, order[i, :k]] = False
    else:
        k = round(sparsity * w.size)
        order = np.argsort(np.abs(w).ravel(), kind="stable")
        flat = mask.ravel()
        flat[order[:k]] = False
        mask = flat.reshape(w.shape)
    pruned[~mask] = 0.0
    return pruned, mask
