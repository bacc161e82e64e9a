import numpy as np


def magnitude_prune(w, sparsity, per_row):
    groups = w if per_row else w.reshape(1, w.size)
    k = int(np.floor(sparsity * (w.shape[0] if per_row else groups.shape[1])))
    order = np.argsort(np.abs(groups), axis=1, kind="stable")
    mask = np.ones(groups.shape, dtype=bool)
    np.put_along_axis(mask, order[:, :k], False, axis=1)
    mask = mask.reshape(w.shape)
    return np.where(mask, w, 0.0), mask
