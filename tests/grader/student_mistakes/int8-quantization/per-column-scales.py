"""Mistake: per-channel takes one scale per column (max over axis 0) instead of one per row.
Expect: the per-channel scales were taken per column; a row is one output channel (max over axis 1, shape (rows, 1)).
"""

import numpy as np


def quantize_int8(w, per_channel):
    axis = 0 if per_channel else None
    absmax = np.abs(w).max(axis=axis, keepdims=True)
    scale = np.where(absmax > 0, absmax / 127, 1.0)
    q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    return q, scale


def dequantize_int8(q, scale):
    return q.astype(np.float64) * scale


def quantization_error(w, per_channel):
    q, scale = quantize_int8(w, per_channel)
    return float(np.abs(w - dequantize_int8(q, scale)).max())
