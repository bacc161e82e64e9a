import numpy as np  # noqa: F401  (you will need it)


def split_kv_attention(q, k, v, n_splits):
    """Attention of one decoding query per head over each contiguous split of the KV cache.

    q: (H, d). k: (H, T, d). v: (H, T, dv). n_splits >= 1 (it may exceed T).
    Split s holds the keys s*chunk ... min((s + 1)*chunk, T) - 1, with chunk = ceil(T / n_splits);
    it is empty when s*chunk >= T.
    Returns (o_parts, lse_parts): float64 arrays of shapes (n_splits, H, dv) and (n_splits, H);
    o normalised within its split, lse the natural log of the split's sum of exp(score);
    an empty split has o = 0 and lse = -inf.
    """
    raise NotImplementedError("score each split's keys, then its log-sum-exp and its normalised output")


def merge_splits(o_parts, lse_parts):
    """Combine the splits' partial results into the attention over every key.

    o_parts: (n_splits, H, dv). lse_parts: (n_splits, H), -inf for empty splits.
    Returns (o, lse): float64 arrays of shapes (H, dv) and (H,).
    """
    raise NotImplementedError("weigh each split by exp(lse_s - lse)")
