import numpy as np


def split_kv_attention(q, k, v, n_splits):
    H, T, d = k.shape
    chunk = -(-T // n_splits)  # ⌈T / n_splits⌉ keys per split
    o_parts = np.zeros((n_splits, H, v.shape[2]))
    lse_parts = np.full((n_splits, H), -np.inf)
    for s in range(n_splits):
        start = s * chunk
        if start >= T:
            continue  # an empty split keeps lse = -inf and o = 0
        keys, values = k[:, start : start + chunk], v[:, start : start + chunk]
        scores = np.einsum("hd,htd->ht", q, keys) / np.sqrt(d)
        m = scores.max(axis=1)
        weights = np.exp(scores - m[:, None])
        total = weights.sum(axis=1)
        lse_parts[s] = m + np.log(total)
        o_parts[s] = np.einsum("ht,htc->hc", weights, values) / total[:, None]
    return o_parts, lse_parts


def merge_splits(o_parts, lse_parts):
    m = lse_parts.max(axis=0)  # finite: every head has a non-empty split
    weights = np.exp(lse_parts - m)  # an empty split's -inf gets weight 0
    total = weights.sum(axis=0)
    o = np.einsum("sh,shc->hc", weights, o_parts) / total[:, None]
    return o, m + np.log(total)
