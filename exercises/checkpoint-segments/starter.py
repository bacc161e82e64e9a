def checkpoint_cost(saved, boundary, flops, segments):
    """Peak bytes and recomputed FLOPs of checkpoint_sequential(layers, segments).

    saved[i]: the bytes layer i keeps for its backward when it runs normally; flops[i]: the cost of
    re-running its forward; boundary: the bytes of one segment's input. 1 <= segments <= len(saved).
    Layout: size = n // segments; segments 0 … segments−2 are [k·size, (k+1)·size) and are
    checkpointed; the last segment is the rest and runs normally.
    Returns the tuple (peak_bytes, recompute_flops) of two ints.
    """
    raise NotImplementedError("the end of the forward, then each checkpointed segment's recompute")


def best_segments(saved, boundary, flops, budget):
    """The number of segments (1 … n) whose peak fits in budget with the least recompute.

    Ties go to fewer segments; return -1 if no number of segments fits.
    """
    raise NotImplementedError("try every number of segments")
