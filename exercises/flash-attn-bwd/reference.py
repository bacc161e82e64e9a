import numpy as np


def flash_attention_bwd(q, k, v, o, do, lse, block_q, block_k, causal):
    Tq, d = q.shape
    Tk, d_v = v.shape
    scale = 1.0 / np.sqrt(d)
    offset = Tk - Tq  # causal: query i sees key j iff j <= i + offset (bottom-right)

    # Pre-pass: D_i = dO_i · O_i, from the saved output (reads o and do, writes D).
    delta = np.sum(do * o, axis=1)
    hbm = 2 * Tq * d_v + Tq

    dq = np.zeros((Tq, d))
    dk = np.zeros((Tk, d))
    dv = np.zeros((Tk, d_v))
    for j0 in range(0, Tk, block_k):  # outer loop: one key block J, kept on chip
        j1 = min(j0 + block_k, Tk)
        k_j, v_j = k[j0:j1], v[j0:j1]
        dk_j = np.zeros((j1 - j0, d))
        dv_j = np.zeros((j1 - j0, d_v))
        hbm += 2 * (j1 - j0) * (d + d_v)  # load K_J and V_J, write dK_J and dV_J at the end

        for i0 in range(0, Tq, block_q):  # inner loop: the query blocks
            i1 = min(i0 + block_q, Tq)
            if causal and j0 > i1 - 1 + offset:
                continue  # not even the block's last query sees the first key: skip the tile
            rows = i1 - i0
            hbm += rows * (d + d_v + 2)  # load Q_I, dO_I, lse_I and D_I
            hbm += 2 * rows * d  # dQ_I += ...: read it and write it back

            q_i, do_i = q[i0:i1], do[i0:i1]
            s = q_i @ k_j.T * scale
            p = np.exp(s - lse[i0:i1, None])  # P rebuilt from the saved lse
            if causal:
                hidden = np.arange(j0, j1)[None, :] > np.arange(i0, i1)[:, None] + offset
                p = np.where(hidden, 0.0, p)
            dv_j += p.T @ do_i
            dp = do_i @ v_j.T
            ds = p * (dp - delta[i0:i1, None])
            dq[i0:i1] += ds @ k_j * scale
            dk_j += ds.T @ q_i * scale

        dk[j0:j1] = dk_j
        dv[j0:j1] = dv_j
    return dq, dk, dv, hbm
