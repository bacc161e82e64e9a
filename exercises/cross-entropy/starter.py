import numpy as np  # noqa: F401  (you will need it)


def cross_entropy(logits, targets, ignore_index, label_smoothing):
    """Mean cross-entropy over the counted rows, and its gradient with respect to the logits.

    logits: float64 array (N, V); targets: int64 array (N,), each a class id in [0, V) or
    ignore_index (that row is not counted); label_smoothing: a float in [0, 1).
    Returns (loss, dlogits): loss a float, dlogits a float64 array (N, V).
    """
    raise NotImplementedError("log-softmax each row stably, mix the one-hot target with ε/V, average over counted rows")
