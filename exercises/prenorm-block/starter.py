import numpy as np  # noqa: F401  (you will need it)


def prenorm_block(x, params, n_heads, eps):
    """One pre-norm decoder block: h = x + attn(rmsnorm(x)), y = h + mlp(rmsnorm(h)).

    x: float64 array (T, D). params: a dict of float64 arrays, "attn_norm" (D,), "wq", "wk",
    "wv", "wo" (D, D), "mlp_norm" (D,), "w_gate", "w_up" (D, F), "w_down" (F, D).
    n_heads divides D; eps >= 0. Returns y, float64 (T, D). Leaves x and params unchanged.
    """
    raise NotImplementedError
