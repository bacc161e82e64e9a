import math

import numpy as np


def clip_grad_norm_tp(grads, replicated, max_norm, norm_type):
    if norm_type == math.inf:
        total_norm = 0.0
        for rank in grads:
            for g in rank:
                if g.size:
                    total_norm = max(total_norm, float(np.abs(g).max()))
    else:
        # Rank 0 counts every tensor; the other ranks only their shards (a replica is counted once).
        squares = sum(float(np.sum(g * g)) for g in grads[0])
        for rank in grads[1:]:
            squares += sum(float(np.sum(g * g)) for i, g in enumerate(rank) if not replicated[i])
        total_norm = math.sqrt(squares)
    coef = min(max_norm / (total_norm + 1e-6), 1.0)  # the same on every rank
    clipped = [[g * coef for g in rank] for rank in grads]
    return clipped, total_norm
