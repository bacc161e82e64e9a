import numpy as np  # noqa: F401  (you will need it)


def quantize_int8(w, per_channel):
    """Symmetric absmax int8 quantization of a weight matrix.

    w: float64 array of shape (rows, cols).
    per_channel: True for one scale per row, False for one scale for the whole matrix.
    Returns (q, scale): q an int8 array of shape (rows, cols), scale a float64 array of shape
    (rows, 1) or (1, 1).
    """
    raise NotImplementedError("find the scale, divide, round half to even, clip, cast to int8")


def dequantize_int8(q, scale):
    """The float64 matrix q · scale, of the shape of q."""
    raise NotImplementedError


def quantization_error(w, per_channel):
    """The largest absolute difference between w and its quantized-then-dequantized copy."""
    raise NotImplementedError
