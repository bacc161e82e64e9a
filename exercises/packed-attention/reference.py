import numpy as np


def packed_attention(q, k, v, seg_ids):
    out = np.zeros((len(seg_ids), v.shape[1]))  # padding rows stay exactly 0
    for t in np.flatnonzero(seg_ids != -1):
        # The keys query t may see: tokens 0 … t of its own document.
        keys = np.flatnonzero(seg_ids[: t + 1] == seg_ids[t])
        s = k[keys] @ q[t] / np.sqrt(q.shape[1])
        w = np.exp(s - s.max())
        out[t] = (w / w.sum()) @ v[keys]
    return out


def attended_pairs(seg_ids):
    return sum(int(np.sum(seg_ids[: t + 1] == seg_ids[t])) for t in np.flatnonzero(seg_ids != -1))
