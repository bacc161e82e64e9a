import numpy as np  # noqa: F401  (you will need it)


def loss_scales(n_tokens):
    """The factor each micro-batch's token-mean loss is multiplied by before backward.

    n_tokens[r][j]: the target tokens of micro-batch j on data-parallel rank r (W = len(n_tokens)
    ranks; each rank has a non-empty list, the lists may differ in length, and a count may be 0).
    Returns scales, lists of floats nested exactly like n_tokens, with scales[r][j] = W·n/N where
    N is the total of every count; every scale is 0.0 when N = 0. Leave n_tokens unchanged.
    """
    raise NotImplementedError("count N over every rank, then W * n / N for each micro-batch")


def accumulate(micro_grads, n_tokens):
    """Simulate gradient accumulation on every rank, then DDP's average over the ranks.

    micro_grads[r][j]: float64 array of shape (P,), the gradient of micro-batch (r, j)'s own
    token-mean loss (all NaN when n_tokens[r][j] == 0). Each rank adds scale·gradient over its
    micro-batches that have tokens; then the W rank sums are averaged.
    Returns a new float64 array of shape (P,): the gradient of the global token-mean loss,
    or zeros when there are no tokens at all. Leave the inputs unchanged.
    """
    raise NotImplementedError("add up scale * gradient on each rank, skipping empty micro-batches, then average")
