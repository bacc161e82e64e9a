import math  # noqa: F401  (you will need them)

import numpy as np  # noqa: F401


def tape_grad(tape, inputs):
    """Evaluate a tape, then run reverse-mode autodiff over it.

    inputs: a list of n floats, nodes 0 … n−1.
    tape: a list of (op, a, b); entry j defines node n + j from the earlier nodes a and b
          (b is −1 for the unary ops "exp", "log", "tanh", "relu").
    Returns (value, grads): the value of the last node (a float), and a float64 array of shape (n,)
    holding the derivative of that value with respect to each input.
    """
    raise NotImplementedError("evaluate the nodes in order, then walk the tape backwards")
