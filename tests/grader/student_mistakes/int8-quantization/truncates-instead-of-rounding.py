"""Mistake: converts w / s to int8 with astype, which truncates toward zero instead of rounding to the nearest integer.
Expect: the integers are truncated, not rounded (the error reaches a whole scale); round before casting.
"""

import numpy as np


def quantize_int8(w, per_channel):
    absmax = np.max(np.abs(w), axis=1, keepdims=True)
    if not per_channel:
        absmax = np.full((1, 1), absmax.max())
    scale = absmax / 127
    scale[absmax == 0] = 1.0
    q = np.clip(w / scale, -127, 127).astype(np.int8)
    return q, scale


def dequantize_int8(q, scale):
    return q.astype(np.float64) * scale


def quantization_error(w, per_channel):
    q, scale = quantize_int8(w, per_channel)
    return float(np.max(np.abs(w - dequantize_int8(q, scale))))
