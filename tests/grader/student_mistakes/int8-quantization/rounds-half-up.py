"""Mistake: rounds with floor(x + 0.5), which sends every half upwards (2.5 → 3, -63.5 → -63) instead of to the even
integer.
Expect: values exactly halfway round the wrong way; round half to even (np.round).
"""

import numpy as np


def quantize_int8(w, per_channel):
    absmax = np.abs(w).max(axis=1, keepdims=True) if per_channel else np.abs(w).max(keepdims=True)
    scale = np.where(absmax == 0, 1.0, absmax / 127)
    q = np.floor(w / scale + 0.5)
    q = np.clip(q, -127, 127).astype(np.int8)
    return q, scale


def dequantize_int8(q, scale):
    return q * scale


def quantization_error(w, per_channel):
    q, scale = quantize_int8(w, per_channel)
    return float(np.abs(w - dequantize_int8(q, scale)).max())
