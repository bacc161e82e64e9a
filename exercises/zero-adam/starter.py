import numpy as np  # noqa: F401


def zero_adam_step(params, rank_grads, m_shards, v_shards, step, lr, beta1, beta2, eps, weight_decay):
    """One AdamW step with the optimizer state sharded over p ranks (ZeRO stage 1/2).

    params: float64 (n,), the full parameters every rank holds.
    rank_grads: p float64 arrays of shape (n,), each rank's local gradient.
    m_shards, v_shards: p float64 arrays; rank r's AdamW moments for its slice r of the
    np.array_split layout of range(n) (contiguous, possibly empty).
    step: the 1-based number of this update.
    Returns (new_params, new_m_shards, new_v_shards): a new float64 (n,) array and two lists of p
    new float64 arrays shaped like the shards given.
    """
    raise NotImplementedError
