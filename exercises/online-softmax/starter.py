import numpy as np  # noqa: F401  (you will need it)


def online_softmax_update(state, scores, values):
    """Fold one block of scores and values into the running softmax state.

    state: {"m": running max, "l": running sum of exp(s - m), "acc": running sum of exp(s - m) * v}.
    scores: shape (b,), b >= 1. values: shape (b, d), one row per score.
    Returns a new state; the state passed in is left unchanged.
    """
    raise NotImplementedError("update the max, rescale l and acc, then add this block")


def tiled_attention(q, K, V, block_size):
    """softmax(K q / sqrt(d)) V, feeding the keys and values through the update block by block.

    q: shape (d,). K: shape (T, d). V: shape (T, d_v). Returns shape (d_v,).
    """
    raise NotImplementedError
