def matmul_cost(m, n, k, dtype_bytes):
    """FLOPs and the minimum bytes moved by C = A @ B, with A of shape (m, k) and B of shape (k, n).

    Every element takes dtype_bytes bytes. Returns the tuple (flops, nbytes) of two exact ints.
    """
    raise NotImplementedError("count the multiply-adds, then the bytes of A, B and C")


def roofline(flops, nbytes, peak_flops, bandwidth):
    """The time of a kernel on the roofline model, and what bounds it.

    peak_flops in FLOP/s, bandwidth in bytes/s. Returns the tuple (seconds, bound): seconds a float,
    bound the str "memory" or "compute".
    """
    raise NotImplementedError("the time to compute, the time to move the bytes, and the larger of the two")
