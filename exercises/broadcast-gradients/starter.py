import numpy as np  # noqa: F401  (you will need it)


def unbroadcast(grad, shape):
    """Reduce the gradient `grad` of a broadcast result to the operand of shape `shape`.

    grad: a float64 array. shape: a tuple of ints that broadcasts to grad.shape (aligned on the right).
    Returns a float64 array of exactly `shape` (for shape (), a 0-d array or a float).
    """
    raise NotImplementedError("sum over the leading axes shape lacks, then over its size-1 axes")


def matmul_vjp(a, b, g):
    """The gradients of <g, np.matmul(a, b)> with respect to a and b.

    a, b: float64 arrays with ndim >= 1, multiplied with numpy's matmul rules. g: shaped like a @ b.
    Returns (da, db), float64 arrays shaped like a and b.
    """
    raise NotImplementedError
