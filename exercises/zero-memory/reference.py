# Bytes per parameter in mixed-precision Adam: 2 (fp16 weights) + 2 (fp16 gradients) + 12 (fp32 master
# weights, momentum and variance). For each ZeRO stage: (bytes every rank holds for all Ψ parameters,
# bytes partitioned over the ranks).
BYTES_PER_PARAM = {
    0: (16, 0),  # everything replicated
    1: (4, 12),  # optimizer state partitioned
    2: (2, 14),  # gradients too
    3: (0, 16),  # weights too
}


def zero_bytes_per_gpu(n_params, n_gpus, stage):
    replicated, partitioned = BYTES_PER_PARAM[stage]
    # Rank 0 holds the largest part of the array_split layout: ⌈Ψ/N⌉ elements, in exact integers.
    shard = -(-n_params // n_gpus)
    return replicated * n_params + partitioned * shard


def max_params(budget_bytes, n_gpus, stage):
    a, b = BYTES_PER_PARAM[stage]
    # The shard s = ⌈Ψ/N⌉ is shared by Ψ = N(s−1)+1 … N·s. The smallest of them costs
    # a·(N(s−1)+1) + b·s bytes; take the largest s for which it still fits (s = 0 is Ψ = 0).
    s = (budget_bytes + a * (n_gpus - 1)) // (a * n_gpus + b)
    if a == 0:
        return n_gpus * s  # only shards: every Ψ with that shard costs the same
    # Within that shard size, Ψ may grow up to N·s while the replicated bytes still fit.
    return min(n_gpus * s, (budget_bytes - b * s) // a)
