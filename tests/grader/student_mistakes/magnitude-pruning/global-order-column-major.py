"""Mistake: flattens the matrix column by column (order="F") for global pruning, so among equal magnitudes the one in
the earlier column goes first, whatever its row, instead of the one first in row-by-row order.
Expect: global ties are broken in the wrong order; the index is the position read row by row.
"""

import numpy as np


def magnitude_prune(w, sparsity, per_row):
    mask = np.ones_like(w, dtype=bool)
    if per_row:
        k = int(np.floor(sparsity * w.shape[1]))
        for i, row in enumerate(w):
            drop = np.argsort(np.abs(row), kind="stable")[:k]
            mask[i, drop] = False
    else:
        k = int(np.floor(sparsity * w.size))
        flat = np.abs(w).flatten(order="F")
        drop = np.argsort(flat, kind="stable")[:k]
        flat_mask = np.ones(w.size, dtype=bool)
        flat_mask[drop] = False
        mask = flat_mask.reshape(w.shape, order="F")
    return np.where(mask, w, 0.0), mask
