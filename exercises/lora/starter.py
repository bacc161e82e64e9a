import numpy as np  # noqa: F401  (you will need it)


def lora_forward(x, w, a, b, alpha):
    """A linear layer with a LoRA adapter, without merging it.

    x: inputs, shape (batch, in).
    w: frozen weights, shape (out, in).
    a: down-projection, shape (r, in); b: up-projection, shape (out, r).
    alpha: the LoRA scaling numerator (the update is scaled by alpha / r).
    Returns y = x wᵀ + (alpha / r) · (x aᵀ) bᵀ, shape (batch, out), float64.
    """
    raise NotImplementedError("the base output x @ w.T, plus the scaled low-rank path")


def lora_merge(w, a, b, alpha):
    """The adapter folded into the weights: w + (alpha / r) · b a, shape (out, in), float64."""
    raise NotImplementedError
