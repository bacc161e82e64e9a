import numpy as np  # noqa: F401  (you will need it)


def magnitude_prune(w, sparsity, per_row):
    """Zero the floor(sparsity · n) weights of smallest magnitude, in each row or in the whole matrix.

    w: float64 array of shape (rows, cols), left unchanged.
    sparsity: a float between 0 and 1.
    per_row: True to prune each row separately (n = cols), False for the whole matrix (n = rows · cols).
    Returns (pruned, mask): pruned float64 of the shape of w with the pruned weights set to 0, and
    mask a bool array of the shape of w, True where a weight is kept.
    """
    raise NotImplementedError("sort |w| with a stable sort and zero the first k")
