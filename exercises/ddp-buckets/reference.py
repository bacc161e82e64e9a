def assign_buckets(param_bytes, cap, first_cap):
    buckets = []
    current, size = [], 0
    # Backward produces gradients from the last parameter to the first: walk the indices in that order.
    for i in range(len(param_bytes) - 1, -1, -1):
        current.append(i)
        size += param_bytes[i]
        limit = first_cap if not buckets else cap  # only the first bucket has the small limit
        if size >= limit:  # reaching the limit closes the bucket, after the parameter is in it
            buckets.append(current)
            current, size = [], 0
    if current:  # what is left at the end is a bucket too
        buckets.append(current)
    return buckets
