import numpy as np


def magnitude_prune(w, sparsity, per_row):
    groups = w if per_row else w.reshape(1, w.size)
    k = int(np.floor(sparsity * groups.shape[1]))
    # Keeps what is larger than the k-th smallest magnitude: every weight tied with it goes too.
    magnitudes = np.abs(groups)
    if k == 0:
        mask = np.ones(groups.shape, dtype=bool)
    else:
        threshold = np.sort(magnitudes, axis=1)[:, k - 1 : k]
        mask = magnitudes > threshold
    mask = mask.reshape(w.shape)
    return np.where(mask, w, 0.0), mask
