import numpy as np  # noqa: F401  (you will need it)


def fp16_blocked_sum(x, block):
    """Sum each block of `block` float16 values in float16, then the block sums in float32.

    x: a 1-D float16 array (possibly empty); block: an int >= 1.
    Returns the float32 total as a float.
    """
    raise NotImplementedError("add each block left to right in float16, then the block sums in float32")


def fp16_kahan_sum(x):
    """Kahan's compensated sum of a 1-D float16 array, every operation in float16. Returns a float."""
    raise NotImplementedError("keep a running sum s and a compensation c, both float16")
