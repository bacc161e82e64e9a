import numpy as np  # noqa: F401  (you will need it)


def tp_mlp_forward(x, w1, w3, w2, tp):
    """The SwiGLU MLP y = (silu(x @ w1) * (x @ w3)) @ w2, split over tp tensor-parallel ranks.

    x: (N, D); w1, w3: (D, F); w2: (F, D); 1 <= tp <= F. Rank r owns the hidden units in part r of
    np.array_split(np.arange(F), tp): those columns of w1 and w3, those rows of w2.
    Returns a list of tp float64 arrays of shape (N, D): rank r's partial output, before the
    all-reduce, so that their sum is y. Leave the inputs unchanged.
    """
    raise NotImplementedError("one partial output per rank, from its own hidden units")


def tp_mlp_backward(x, w1, w3, w2, dy, tp):
    """The backward pass of tp_mlp_forward on every rank, given dy (N, D), the gradient of y.

    Returns (dx_parts, dw1_shards, dw3_shards, dw2_shards), four lists of tp float64 arrays:
    dx_parts[r] (N, D) is rank r's partial dx (the true dx is their sum); dw1_shards[r] and
    dw3_shards[r] are (D, len(F_r)); dw2_shards[r] is (len(F_r), D). Leave the inputs unchanged.
    """
    raise NotImplementedError("back-propagate dy through each rank's shard on its own")
