import numpy as np


def quantize_int8(w, per_channel):
    absmax = np.abs(w).max(axis=1 if per_channel else None, keepdims=True)
    scale = np.where(absmax > 0, absmax / 127, 1.0)
    q = np.clip(np.sign(w) * np.floor(np.abs(w / scale) + 0.5), -127, 127).astype(np.int8)
    return q, scale


def dequantize_int8(q, scale):
    return q.astype(np.float64) * scale


def quantization_error(w, per_channel):
    q, scale = quantize_int8(w, per_channel)
    return float(np.abs(w - dequantize_int8(q, scale)).max())
