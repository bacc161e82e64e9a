"""Mistake: forgets the all-zero group: its scale comes out as 0 instead of 1, and its q is cast from 0 / 0 = nan.
Expect: an all-zero row or matrix must get the scale 1 (and q = 0), not 0.
"""

import numpy as np


def quantize_int8(w, per_channel):
    groups = w if per_channel else w.reshape(1, -1)
    scale = np.abs(groups).max(axis=1, keepdims=True) / 127
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    return q, scale


def dequantize_int8(q, scale):
    return q.astype(np.float64) * scale


def quantization_error(w, per_channel):
    q, scale = quantize_int8(w, per_channel)
    return float(np.max(np.abs(w - dequantize_int8(q, scale))))
