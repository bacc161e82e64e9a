import numpy as np


def rope(x, positions, base):
    d = x.shape[1]
    freqs = base ** (-np.arange(0, d, 2) / d)
    angles = np.outer(positions, freqs)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[:, 0::2], x[:, 1::2]
    x[:, 0::2], x[:, 1::2] = even * cos - odd * sin, even * sin + odd * cos
    return x
