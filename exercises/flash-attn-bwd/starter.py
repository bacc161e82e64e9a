import numpy as np  # noqa: F401  (you will need it)


def flash_attention_bwd(q, k, v, o, do, lse, block_q, block_k, causal):
    """The gradients of attention, rebuilt from the forward's saved o and lse, and the HBM traffic.

    q: (Tq, d). k: (Tk, d). v: (Tk, dv). o, do: (Tq, dv), the saved output and dL/dO.
    lse: (Tq,), the saved log-sum-exp of each query's visible scores (natural log).
    block_q, block_k: tile sizes, ints >= 1. causal: query i sees key j iff j <= i + (Tk - Tq).
    P_ij = exp(q_i·k_j / sqrt(d) - lse_i) on visible pairs (0 elsewhere) and D_i = do_i·o_i,
    both from the arguments as given.
    Returns (dq, dk, dv, hbm_elems): float64 arrays shaped like q, k and v, and an int.
    """
    raise NotImplementedError("a pre-pass for D, then key blocks outside, query blocks inside")
