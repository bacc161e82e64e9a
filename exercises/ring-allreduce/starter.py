import numpy as np  # noqa: F401


def ring_allreduce(xs):
    """Simulate a ring all-reduce (a reduce-scatter, then an all-gather) over p = len(xs) ranks.

    xs: a list of p float64 arrays of shape (n,); chunk c is part c of
    np.array_split(np.arange(n), p). Leave xs and its arrays unchanged.
    Returns (outs, log): outs, a list of p new float64 arrays of shape (n,), each the elementwise
    sum; log, a list of 2(p - 1) steps, each a list of p tuples (src, dst, chunk) in increasing src.
    """
    raise NotImplementedError("reduce-scatter: rank r sends chunk (r - s) % p to rank (r + 1) % p")


def ring_elements_sent(n, p):
    """How many array elements each of the p ranks sends during a ring all-reduce of n positions.

    Returns a list of p ints.
    """
    raise NotImplementedError("add up the sizes of the chunks each rank sends, in both phases")
