def zero_bytes_per_gpu(n_params, n_gpus, stage):
    """Rank 0's bytes of model states under ZeRO stage 0, 1, 2 or 3.

    Mixed-precision Adam: 2 bytes of fp16 weights, 2 of fp16 gradients and 12 of optimizer state
    per parameter. Partitioned items are split over n_gpus ranks with the array_split layout, so
    rank 0 holds ⌈n_params / n_gpus⌉ of them. Return an exact int (n_params may exceed 2**53).
    """
    raise NotImplementedError("the replicated bytes for all parameters plus the partitioned bytes for rank 0's shard")


def max_params(budget_bytes, n_gpus, stage):
    """The largest n_params >= 0 whose zero_bytes_per_gpu(n_params, n_gpus, stage) <= budget_bytes.

    Return an exact int (0 when not even one parameter fits).
    """
    raise NotImplementedError("invert zero_bytes_per_gpu exactly: the shard is rounded up")
