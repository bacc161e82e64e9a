import numpy as np  # noqa: F401  (you will need it)


def blelloch_scan(x):
    """The exclusive prefix sum of x by Blelloch's up-sweep and down-sweep, with every level recorded.

    x: a 1-D int64 array of length n >= 1.
    Returns (out, trace): out an int64 array of shape (n,), out[i] = x[0] + ... + x[i - 1];
    trace a list of 2 * log2(P) int64 arrays of length P (P the smallest power of two >= n): a copy of
    the padded working array after each level of the up-sweep, then after each level of the down-sweep.
    """
    raise NotImplementedError("pad to P, up-sweep, clear the root, down-sweep")


def segmented_scan(x, flags):
    """The exclusive prefix sum of x restarted at every segment head.

    x: a 1-D int64 array of length n >= 1. flags: a bool array of shape (n,); a segment starts at index 0
    and at every i where flags[i] is True.
    Returns an int64 array of shape (n,): out[i] = x[s] + ... + x[i - 1], s the start of i's segment.
    """
    raise NotImplementedError
