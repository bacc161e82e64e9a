import numpy as np  # noqa: F401  (you will need it)


def layernorm_fwd_bwd(x, gamma, beta, dout, eps):
    """LayerNorm over the last axis, and its backward pass.

    x: shape (..., D), ndim >= 1. gamma, beta: shape (D,). dout: shaped like x. eps: a float >= 0.
    Returns (out, dx, dgamma, dbeta): out and dx shaped like x, dgamma and dbeta of shape (D,),
    the gradients of L = sum(dout * out). Leave the inputs unchanged.
    """
    raise NotImplementedError("normalise each row, then back-propagate dout through it")
