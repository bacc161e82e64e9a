import numpy as np


def lora_forward(x, w, a, b, alpha):
    x, w, a, b = (m.astype(np.float32) for m in (x, w, a, b))
    scale = np.float32(alpha / a.shape[0])
    return x @ w.T + scale * ((x @ a.T) @ b.T)


def lora_merge(w, a, b, alpha):
    w, a, b = (m.astype(np.float32) for m in (w, a, b))
    return w + np.float32(alpha / a.shape[0]) * (b @ a)
