import math  # noqa: F401

import numpy as np  # noqa: F401


def clip_grad_norm_tp(grads, replicated, max_norm, norm_type):
    """Clip the gradients of a tensor-parallel model by one global norm.

    grads: a list with one entry per rank, each a list of k float64 arrays (tensor i on every rank).
    replicated: a list of k bools; True means every rank holds an identical copy of tensor i.
    max_norm: > 0; norm_type: 2.0 or math.inf.
    Returns (clipped, total_norm): new arrays nested like grads, every one multiplied by
    min(max_norm / (total_norm + 1e-6), 1.0), and the norm of the whole model's gradient before
    clipping, as a float.
    """
    raise NotImplementedError
