"""Mistake: pairs coordinate i with coordinate i + d/2 (the GPT-NeoX / Hugging Face layout) instead of neighbouring
coordinates (2i, 2i + 1).
Expect: the wrong coordinates are paired (the rotate-half layout); pair x[2i] with x[2i+1].
"""

import numpy as np


def rope(x, positions, base):
    T, d = x.shape
    half = d // 2
    freqs = base ** (-2 * np.arange(half) / d)
    angles = np.outer(positions, freqs)
    cos, sin = np.cos(angles), np.sin(angles)
    x1 = x[:, :half]
    x2 = x[:, half:]
    out = np.empty((T, d))
    out[:, :half] = x1 * cos - x2 * sin
    out[:, half:] = x1 * sin + x2 * cos
    return out
