import numpy as np  # noqa: F401  (you will need it)


def filter_logits(logits, temperature, top_k, top_p):
    """Temperature, then top-k, then top-p, each followed by renormalisation.

    logits: float64 array of shape (V,). temperature > 0. top_k >= 0 (0 keeps all).
    top_p in (0, 1] (1.0 keeps all). Ties go to the lower token id.
    Returns a new float64 array of shape (V,) adding up to 1, with 0 for every token removed.
    """
    raise NotImplementedError("divide by the temperature, softmax, then filter")


def sample_token(probs, u):
    """The smallest i with cumsum(probs)[i] > u, as an int (u is uniform in [0, 1))."""
    raise NotImplementedError
