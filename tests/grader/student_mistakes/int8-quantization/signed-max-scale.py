"""Mistake: takes the scale from the largest signed weight (max w) instead of the largest magnitude, so a group whose
largest magnitude is a negative weight gets too small a scale, and that weight is clipped to −127.
Expect: the scale must come from max |w|, which may be a negative weight.
"""

import numpy as np


def _scale(group):
    biggest = group.max()
    if biggest > 0:
        return biggest / 127
    return 1.0


def quantize_int8(w, per_channel):
    scales = [_scale(row) for row in w] if per_channel else [_scale(w)]
    scale = np.array(scales).reshape(-1, 1)
    q = np.clip(np.round(w / scale), -127, 127).astype(np.int8)
    return q, scale


def dequantize_int8(q, scale):
    return q.astype(np.float64) * scale


def quantization_error(w, per_channel):
    q, scale = quantize_int8(w, per_channel)
    return float(np.max(np.abs(w - dequantize_int8(q, scale))))
