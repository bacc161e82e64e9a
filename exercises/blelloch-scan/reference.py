import numpy as np


def blelloch_scan(x):
    n = len(x)
    P = 1 << (n - 1).bit_length()  # the smallest power of two >= n
    a = np.zeros(P, dtype=np.int64)
    a[:n] = x  # padded with zeros; x itself is left alone
    levels = P.bit_length() - 1  # log2(P)
    trace = []
    # Up-sweep: each level adds the left child into the right one, building partial sums in a tree.
    for k in range(levels):
        d = 1 << k
        i = np.arange(2 * d - 1, P, 2 * d)
        a[i] += a[i - d]
        trace.append(a.copy())
    a[P - 1] = 0  # clear the root: the exclusive prefix of the first element is 0
    # Down-sweep: each node passes its prefix to its left child, and prefix + left sum to its right child.
    for k in reversed(range(levels)):
        d = 1 << k
        i = np.arange(2 * d - 1, P, 2 * d)
        t = a[i - d]  # fancy indexing copies: the old left values
        a[i - d] = a[i]
        a[i] += t
        trace.append(a.copy())
    return a[:n].copy(), trace


def segmented_scan(x, flags):
    n = len(x)
    total = np.zeros(n, dtype=np.int64)
    total[1:] = np.cumsum(x[:-1])  # the exclusive scan of the whole array
    heads = np.array(flags, dtype=bool)  # a copy: the caller's flags stay as given
    heads[0] = True  # index 0 always starts a segment
    segment = np.cumsum(heads) - 1  # the segment each index lies in
    starts = np.flatnonzero(heads)  # the index where each segment starts
    return total - total[starts[segment]]
