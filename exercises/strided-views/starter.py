import numpy as np  # noqa: F401  (you will need it)


def strided_gather(buf, shape, strides, offset):
    """Read the view (shape, strides, offset) out of the 1-D buffer buf.

    out[i_0, ..., i_{n-1}] = buf[offset + sum_d i_d * strides[d]]; strides and offset count elements.
    Returns an array of shape `shape` and buf's dtype.
    """
    raise NotImplementedError


def view_strides(shape, strides, new_shape):
    """The strides that reshape the view (shape, strides) to new_shape without a copy, or None.

    Returns a tuple of ints, one per dimension of new_shape (those of size-1 dimensions are free),
    or None when the reshape needs a copy.
    """
    raise NotImplementedError
