import numpy as np  # noqa: F401  (you will need it)


def shard_positions(T, p, layout):
    """The positions each of the p ranks holds, for layout "contiguous" or "zigzag".

    contiguous: rank r holds part r of np.array_split(np.arange(T), p).
    zigzag: cut range(T) into 2p array_split parts; rank r holds part r, then part 2p - 1 - r.
    Returns a list of p lists of ints (a list may be empty).
    """
    raise NotImplementedError


def ring_attention(q, k, v, p, causal, layout):
    """One attention head over p ranks in a ring, merged with the online softmax.

    q, k: shape (T, d); v: shape (T, d_v). At step s, rank r holds the keys and values of rank
    (r - s) mod p. With causal, a key is allowed iff its global position <= the query's.
    Returns (out, lse, work): out (T, d_v) and lse (T,) in original position order, and work, a
    list of p lists of p ints: the allowed (query, key) pairs rank r scores at step s.
    """
    raise NotImplementedError("hold the running max, sum and accumulator of each query, step by step")
