import numpy as np  # noqa: F401  (you will need it)


def moe_forward(x, router_w, w_in, w_out, k, capacity):
    """A top-k mixture-of-experts layer with expert capacity and a balance loss.

    x: (N, D). router_w: (D, E). w_in: (E, D, F). w_out: (E, F, D). 1 <= k <= E. capacity >= 0.
    Returns (y, aux_loss, n_dropped): y a float64 array (N, D), aux_loss a float, n_dropped an int.
    """
    raise NotImplementedError("route, fill the capacity rank by rank, then mix the experts' outputs")
