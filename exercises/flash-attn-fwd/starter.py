import numpy as np  # noqa: F401  (you will need it)


def flash_attention_fwd(q, k, v, block_q, block_k, causal):
    """One head of attention computed tile by tile, as the FlashAttention forward kernel does.

    q: (Tq, d). k: (Tk, d). v: (Tk, dv). block_q, block_k >= 1 (they may exceed Tq and Tk).
    causal: if True, Tq <= Tk and query i sees key j iff j <= i + (Tk - Tq) (bottom-right aligned).
    Returns (o, lse, n_tiles): o float64 (Tq, dv); lse float64 (Tq,), the natural log of each row's
    sum of exp(score) over the keys it sees; n_tiles an int, the (query block, key block) tiles that
    hold at least one visible pair.
    """
    raise NotImplementedError("for each query block, walk the key blocks with a running max, sum and accumulator")
