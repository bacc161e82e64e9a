import numpy as np


def rope(x, positions, base):
    T, d = x.shape
    freqs = base ** (-np.arange(0, d, 2) / d)
    angles = np.outer(positions, freqs)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]
    out = np.empty((T, d))
    out[:, 0::2] = even * cos - odd * sin
    out[:, 1::2] = even * sin + odd * cos
    return out
