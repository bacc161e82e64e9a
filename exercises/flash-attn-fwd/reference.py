import numpy as np


def flash_attention_fwd(q, k, v, block_q, block_k, causal):
    Tq, d = q.shape
    Tk, dv = v.shape
    offset = Tk - Tq  # causal: query i sees key j iff j <= i + offset (bottom-right)
    o = np.empty((Tq, dv))
    lse = np.empty(Tq)
    n_tiles = 0
    for i0 in range(0, Tq, block_q):
        rows = np.arange(Tq)[i0 : i0 + block_q]
        m = np.full(len(rows), -np.inf)  # each row's running max
        row_sum = np.zeros(len(rows))  # each row's running sum of exp(s - m)
        acc = np.zeros((len(rows), dv))  # each row's running sum of exp(s - m) * v
        for j0 in range(0, Tk, block_k):
            if causal and j0 > rows[-1] + offset:
                break  # no row of this block sees this key block, or any later one
            cols = np.arange(Tk)[j0 : j0 + block_k]
            n_tiles += 1
            s = q[rows] @ k[cols].T / np.sqrt(d)
            if causal:
                s = np.where(cols <= rows[:, None] + offset, s, -np.inf)
            m_new = np.maximum(m, s.max(axis=1))
            rescale = np.exp(m - m_new)  # 0 at the first tile, where m = -inf
            p = np.exp(s - m_new[:, None])
            row_sum = row_sum * rescale + p.sum(axis=1)
            acc = acc * rescale[:, None] + p @ v[cols]
            m = m_new
        o[rows] = acc / row_sum[:, None]
        lse[rows] = m + np.log(row_sum)
    return o, lse, n_tiles
