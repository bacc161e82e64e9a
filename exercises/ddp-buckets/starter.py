def assign_buckets(param_bytes, cap, first_cap):
    """Group parameters into DDP gradient buckets, in the order backward produces their gradients.

    param_bytes: list of ints >= 1, the gradient bytes of each parameter, in registration order.
    cap: the byte limit of every bucket but the first; first_cap: the first bucket's limit.
    Returns a list of buckets in closing order, each a list of parameter indices in the order
    they were added (descending). The list param_bytes is left unchanged.
    """
    raise NotImplementedError("walk n-1, ..., 0; add each index, then close the bucket once it reaches its limit")
