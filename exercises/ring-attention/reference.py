import numpy as np


def shard_positions(T, p, layout):
    if layout == "contiguous":
        return [part.tolist() for part in np.array_split(np.arange(T), p)]
    # zigzag: 2p chunks; rank r takes chunk r and its mirror image 2p - 1 - r.
    chunks = np.array_split(np.arange(T), 2 * p)
    return [chunks[r].tolist() + chunks[2 * p - 1 - r].tolist() for r in range(p)]


def ring_attention(q, k, v, p, causal, layout):
    d = q.shape[1]
    shards = [np.array(positions, dtype=int) for positions in shard_positions(len(q), p, layout)]
    # Each rank's online-softmax state for its own queries: the running max, the sum of
    # exp(score - max) and the accumulator, the sum of exp(score - max) * v.
    run_max = [np.full(len(pos), -np.inf) for pos in shards]
    run_sum = [np.zeros(len(pos)) for pos in shards]
    run_acc = [np.zeros((len(pos), v.shape[1])) for pos in shards]
    work = [[] for _ in range(p)]  # work[r] gets one entry per step
    held = list(range(p))  # the rank whose KV shard each rank holds: its own at step 0
    for _step in range(p):
        for r in range(p):
            qpos, kpos = shards[r], shards[held[r]]
            scores = q[qpos] @ k[kpos].T / np.sqrt(d)
            allowed = kpos[None, :] <= qpos[:, None] if causal else np.ones(scores.shape, dtype=bool)
            work[r].append(int(allowed.sum()))
            scores = np.where(allowed, scores, -np.inf)
            new_max = np.maximum(run_max[r], scores.max(axis=1, initial=-np.inf))
            rescale = np.exp(run_max[r] - new_max)
            weights = np.exp(scores - new_max[:, None])
            run_sum[r] = run_sum[r] * rescale + weights.sum(axis=1)
            run_acc[r] = run_acc[r] * rescale[:, None] + weights @ v[kpos]
            run_max[r] = new_max
        held = [held[(r - 1) % p] for r in range(p)]  # every rank passes its KV shard to rank r + 1
    out = np.zeros((len(q), v.shape[1]))
    lse = np.zeros(len(q))
    for r in range(p):
        out[shards[r]] = run_acc[r] / run_sum[r][:, None]
        lse[shards[r]] = run_max[r] + np.log(run_sum[r])
    return out, lse, work
