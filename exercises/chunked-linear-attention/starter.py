import numpy as np  # noqa: F401  (you will need it)


def chunked_linear_attention(q, k, v, gamma, chunk):
    """Causal linear attention with decay gamma, computed chunk by chunk.

    q, k: (T, dk). v: (T, dv). 0 < gamma <= 1. chunk >= 1.
    Returns (out, states): out a float64 array (T, dv), out[t] = sum over s <= t of gamma^(t-s) (q[t]·k[s]) v[s];
    states a float64 array (n_chunks, dk, dv), the state at the last token of each chunk.
    """
    raise NotImplementedError("within each chunk a masked, decayed product; between chunks the state")
