"""Mistake: computes the angles in float32 (to save memory), which loses precision at large positions.
Expect: float32-sized errors that grow with the position (about 4e-3 at 131,072); compute the angles in float64.
"""

import numpy as np


def rope(x, positions, base):
    d = x.shape[1]
    freqs = (base ** (-np.arange(0, d, 2) / d)).astype(np.float32)
    angles = positions.astype(np.float32)[:, None] * freqs[None, :]
    cos = np.cos(angles).astype(np.float64)
    sin = np.sin(angles).astype(np.float64)
    out = x.copy()
    out[:, 0::2] = x[:, 0::2] * cos - x[:, 1::2] * sin
    out[:, 1::2] = x[:, 0::2] * sin + x[:, 1::2] * cos
    return out
