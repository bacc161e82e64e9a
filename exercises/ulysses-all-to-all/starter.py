import numpy as np  # noqa: F401  (you will need it)


def seq_to_heads(shards):
    """The all-to-all from sequence shards to head shards.

    shards: a list of p float64 arrays; shards[r] has shape (T_r, H, d), rank r's run of tokens.
    Rank j owns the heads of part j of np.array_split(np.arange(H), p).
    Returns a list of p new float64 arrays; the j-th has shape (T, H_j, d): every token, in
    sequence order, for rank j's heads.
    """
    raise NotImplementedError("send each rank its heads, and stack what rank j receives in source-rank order")


def ulysses_attention(q_shards, k_shards, v_shards, causal):
    """Attention over the whole sequence with two all-to-alls, as DeepSpeed-Ulysses does it.

    q_shards, k_shards, v_shards: lists of p float64 arrays of shape (T_r, H, d).
    causal: when True, query i sees the keys at global positions j <= i.
    Returns (out_shards, sent): out_shards a list of p float64 arrays of shape (T_r, H, d), in
    sequence layout; sent a list of p ints, the elements each rank sends (its own piece excluded).
    """
    raise NotImplementedError
