import numpy as np  # noqa: F401  (you will need it)


def quantize_rows(x):
    """Quantize each row (one token's key or value) of x to int8 with its own absmax scale.

    x: float64 array of shape (t, d), t possibly 0.
    Returns (q, scale): q an int8 array of shape (t, d), scale a float64 array of shape (t, 1).
    """
    raise NotImplementedError("one scale per row: max |x| / 127, or 1 for an all-zero row")


def int8_cache_attend(q_vec, k_q, k_scale, v_q, v_scale):
    """One query attending over an int8 cache of t ≥ 1 tokens.

    q_vec: float64, shape (d,). k_q, v_q: int8, shape (t, d). k_scale, v_scale: float64, shape (t, 1).
    Returns out, float64 of shape (d,).
    """
    raise NotImplementedError("dequantize the keys and values, then scaled dot-product attention")


def int8_cache_bytes(n_layers, n_kv_heads, head_dim, n_tokens, scale_bytes):
    """Bytes an int8 KV cache takes for one sequence, scales included, as an exact int."""
    raise NotImplementedError
