"""Mistake: finds the k-th smallest magnitude and removes every weight at or below it, so weights tied at the cut all
go.
Expect: more than k weights are removed when magnitudes tie at the cut; remove exactly k, ties to the lower index.
"""

import numpy as np


def _prune_group(values, sparsity):
    n = values.size
    k = int(np.floor(sparsity * n))
    if k == 0:
        return np.ones(n, dtype=bool)
    threshold = np.sort(np.abs(values))[k - 1]
    return np.abs(values) > threshold


def magnitude_prune(w, sparsity, per_row):
    if per_row:
        mask = np.array([_prune_group(row, sparsity) for row in w])
    else:
        mask = _prune_group(w.ravel(), sparsity).reshape(w.shape)
    pruned = np.where(mask, w, 0.0)
    return pruned, mask
