import numpy as np


def cross_entropy(logits, targets, ignore_index, label_smoothing):
    N, V = logits.shape
    counted = targets != ignore_index
    M = int(counted.sum())
    if M == 0:
        return 0.0, np.zeros((N, V))
    shifted = logits - logits.max(axis=-1, keepdims=True)
    log_p = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))
    y = np.full((N, V), label_smoothing / V)
    rows = np.flatnonzero(counted)
    y[rows, targets[rows]] += 1.0 - label_smoothing
    row_loss = -(y * log_p).sum(axis=-1)
    loss = float(row_loss[counted].sum() / M)
    dlogits = np.where(counted[:, None], (np.exp(log_p) - y) / M, 0.0)
    return loss, dlogits
