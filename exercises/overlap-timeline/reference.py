def allreduce_time(nbytes, world, bandwidth, latency):
    # A ring all-reduce is a reduce-scatter then an all-gather, p - 1 steps each. Every step pays one
    # latency and moves one chunk of nbytes / p bytes. A single rank has no step at all.
    steps = 2 * (world - 1)
    return float(steps * latency + steps * (nbytes / world) / bandwidth)


def ddp_timeline(ready, buckets, param_bytes, world, bandwidth, latency):
    ends = []
    for bucket in buckets:
        bucket_ready = max(ready[i] for i in bucket)  # the bucket waits for its last gradient
        nbytes = sum(param_bytes[i] for i in bucket)
        # One communication stream, in list order: wait for the bucket before it too.
        start = max(bucket_ready, ends[-1]) if ends else bucket_ready
        ends.append(start + allreduce_time(nbytes, world, bandwidth, latency))
    # The backward pass ends with its latest gradient; what communication runs after it is exposed.
    exposed = ends[-1] - max(ready)
    return ends, exposed
