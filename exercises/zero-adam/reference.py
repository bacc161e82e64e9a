import numpy as np


def zero_adam_step(params, rank_grads, m_shards, v_shards, step, lr, beta1, beta2, eps, weight_decay):
    p, n = len(rank_grads), len(params)
    base, extra = divmod(n, p)  # the first `extra` slices hold one element more
    pieces, new_m, new_v = [], [], []
    for r in range(p):
        lo = r * base + min(r, extra)
        hi = lo + base + (1 if r < extra else 0)
        # (1) Reduce-scatter with averaging: rank r receives the mean of every rank's slice r.
        g = sum(grads[lo:hi] for grads in rank_grads) / p
        # (2) AdamW on the slice rank r owns: decay first, then the moments, then the step.
        theta = params[lo:hi] * (1 - lr * weight_decay)
        m = beta1 * m_shards[r] + (1 - beta1) * g
        v = beta2 * v_shards[r] + (1 - beta2) * g * g
        m_hat = m / (1 - beta1**step)
        v_hat = v / (1 - beta2**step)
        pieces.append(theta - lr * m_hat / (np.sqrt(v_hat) + eps))
        new_m.append(m)
        new_v.append(v)
    # (3) All-gather: every rank ends with all the updated slices, in rank order.
    return np.concatenate(pieces), new_m, new_v
