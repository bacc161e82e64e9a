import numpy as np  # noqa: F401  (you will need it)


def rope(x, positions, base):
    """Rotary position embedding, interleaved pairs (RoFormer).

    x: queries or keys, shape (T, d) with d even, float64.
    positions: the position of each row, an integer array of shape (T,).
    base: the frequency base, e.g. 10000.0.
    Returns a new float64 array of shape (T, d): pair (x[t, 2i], x[t, 2i+1]) rotated by the
    angle positions[t] * base ** (-2i / d).
    """
    raise NotImplementedError("rotate each pair (x[2i], x[2i+1]) by its angle")
