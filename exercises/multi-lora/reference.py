import numpy as np


def multi_lora(x, w, lora_a, lora_b, adapter_idx, scales):
    y = x @ w.T  # the base model, for every row
    ids = np.asarray(adapter_idx)
    for j in range(len(lora_a)):
        rows = np.flatnonzero(ids == j)  # gather this adapter's rows (-1 matches no adapter)
        y[rows] += scales[j] * (x[rows] @ lora_a[j].T) @ lora_b[j].T  # and scatter them back
    return y


def group_rows(adapter_idx):
    ids = np.asarray(adapter_idx)
    perm = np.argsort(ids, kind="stable")
    grouped = ids[perm]
    segments = []
    for j in np.unique(ids[ids >= 0]):
        start = np.searchsorted(grouped, j, side="left")
        end = np.searchsorted(grouped, j, side="right")
        segments.append((int(j), int(start), int(end)))
    return perm, segments
