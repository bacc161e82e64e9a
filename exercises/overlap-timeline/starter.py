def allreduce_time(nbytes, world, bandwidth, latency):
    """Time of a ring all-reduce of nbytes bytes over world ranks, in the alpha-beta model.

    bandwidth is in bytes per time unit, latency in time units (e.g. bytes per µs and µs).
    Returns a float: 2(p - 1)·latency + 2(p - 1)/p · nbytes / bandwidth, and exactly 0.0 when world == 1.
    """
    raise NotImplementedError("2(p - 1) steps, each one latency plus a chunk of nbytes / p bytes")


def ddp_timeline(ready, buckets, param_bytes, world, bandwidth, latency):
    """Simulate DDP's bucketed all-reduces on one communication stream.

    ready[i]: the time parameter i's gradient is ready; buckets: lists of parameter indices,
    all-reduced one at a time in list order; param_bytes[i]: the gradient bytes of parameter i.
    Returns (ends, exposed): ends a list of floats, the end time of each bucket's all-reduce in
    list order; exposed a float, ends[-1] - max(ready). The arguments are left unchanged.
    """
    raise NotImplementedError(
        "start_b = max(bucket ready time, end of bucket b - 1); end_b = start_b + all-reduce time"
    )
