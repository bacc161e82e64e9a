import numpy as np  # noqa: F401  (you will need it)


def multi_lora(x, w, lora_a, lora_b, adapter_idx, scales):
    """One linear layer for a batch whose rows use different LoRA adapters.

    x: (n, d_in) float64. w: (d_out, d_in). lora_a[j]: (r_j, d_in). lora_b[j]: (d_out, r_j).
    adapter_idx: (n,) int array, -1 for the base model alone. scales: (len(lora_a),) float64.
    Returns y, a new (n, d_out) float64 array; the inputs are left unchanged.
    """
    raise NotImplementedError("the base output for every row, plus each row's own adapter")


def group_rows(adapter_idx):
    """(perm, segments): the stable ascending argsort of adapter_idx, and one (j, start, end) per adapter used."""
    raise NotImplementedError
