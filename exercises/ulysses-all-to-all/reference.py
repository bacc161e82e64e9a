import numpy as np


def head_blocks(H, p):
    """Rank j's heads: part j of the array_split layout of range(H), contiguous and possibly empty."""
    return np.array_split(np.arange(H), p)


def seq_to_heads(shards):
    p = len(shards)
    heads = head_blocks(shards[0].shape[1], p)
    # Rank j receives, from every rank r in order, the columns of its own heads; the sources hold
    # consecutive runs of tokens, so stacking them in rank order restores the sequence order.
    return [np.concatenate([shard[:, heads[j], :] for shard in shards], axis=0) for j in range(p)]


def heads_to_seq(blocks, token_counts):
    """The inverse all-to-all: rank r gets the rows of its own tokens from every rank's heads."""
    ends = np.cumsum(token_counts)
    starts = ends - token_counts
    return [np.concatenate([block[starts[r] : ends[r]] for block in blocks], axis=1) for r in range(len(ends))]


def attention(q, k, v, causal):
    """Softmax attention for each head over all T tokens: q, k, v of shape (T, h, d) -> (T, h, d)."""
    T, _, d = q.shape
    scores = np.einsum("thd,shd->hts", q, k) / np.sqrt(d)
    if causal:
        scores = np.where(np.tri(T, dtype=bool), scores, -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("hts,shd->thd", weights, v)


def ulysses_attention(q_shards, k_shards, v_shards, causal):
    p = len(q_shards)
    token_counts = [len(shard) for shard in q_shards]
    T = sum(token_counts)
    _, H, d = q_shards[0].shape
    q, k, v = seq_to_heads(q_shards), seq_to_heads(k_shards), seq_to_heads(v_shards)
    outs = [attention(q[j], k[j], v[j], causal) for j in range(p)]
    out_shards = heads_to_seq(outs, token_counts)
    head_counts = [len(heads) for heads in head_blocks(H, p)]
    # q, k and v leave for the other ranks' heads; the outputs come back for the other ranks' tokens.
    sent = [
        3 * token_counts[r] * (H - head_counts[r]) * d + (T - token_counts[r]) * head_counts[r] * d for r in range(p)
    ]
    return out_shards, sent
