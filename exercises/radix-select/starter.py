import numpy as np  # noqa: F401  (you will need it)


def ordered_keys(x):
    """The uint32 keys whose unsigned order is the float order of x.

    x: float32 array of shape (n,). A negative float's bits are all flipped; any other float's
    sign bit is set. Returns a uint32 array of shape (n,); x is left unchanged.
    """
    raise NotImplementedError("view x as uint32, then flip the bits of the negative floats")


def radix_select(x, k, radix_bits):
    """The k-th largest value of x (k = 1: the largest), found digit by digit, most significant first.

    radix_bits is 1, 2, 4 or 8. Returns (value, passes): value a float (-0.0 kept as -0.0), passes
    a list of 32 // radix_bits pairs (digit chosen, number of candidates kept), one per pass.
    """
    raise NotImplementedError
