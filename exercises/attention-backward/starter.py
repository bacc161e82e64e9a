import numpy as np  # noqa: F401  (you will need it)


def sdpa_backward(q, k, v, dout, causal):
    """The gradients of L = sum(dout * O), where O = softmax(q k^T / sqrt(d)) v.

    q: shape (Tq, d). k: shape (Tk, d). v: shape (Tk, dv). dout: shape (Tq, dv).
    causal: when True, query i sees key j iff j <= i + (Tk - Tq) (bottom-right alignment).
    Returns (dq, dk, dv), float64 arrays shaped like q, k and v.
    """
    raise NotImplementedError("recompute P, then back-propagate dout through P v and the softmax")
