import numpy as np  # noqa: F401  (you will need it)


def packed_attention(q, k, v, seg_ids):
    """Causal attention inside each document of a packed row; padding rows are 0.

    q, k: float64 (T, d). v: float64 (T, dv). seg_ids: int64 (T,), the document id of each
    token, -1 for padding. Query t sees key s iff s <= t and seg_ids[s] == seg_ids[t] != -1.
    Returns out, float64 (T, dv). Leaves the inputs unchanged.
    """
    raise NotImplementedError


def attended_pairs(seg_ids):
    """The number of (query, key) pairs the mask allows, as an int."""
    raise NotImplementedError
