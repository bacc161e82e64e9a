import numpy as np  # noqa: F401


def tiled_matmul(a, b, tile_m, tile_n, tile_k):
    """c = a @ b computed tile by tile, and the number of elements of a and b loaded.

    a: float64 (M, K); b: float64 (K, N); tile_m, tile_n, tile_k: ints >= 1, possibly larger than
    the matrix. For each output tile (rows i .. i + tile_m - 1, columns j .. j + tile_n - 1,
    clipped to the matrix), an accumulator starts at 0 and, for k0 = 0, tile_k, 2 * tile_k, ...
    below K, adds the product of the A tile a[i:i+tile_m, k0:k0+tile_k] and the B tile
    b[k0:k0+tile_k, j:j+tile_n], both clipped to the matrices.
    Returns the tuple (c, loads): c float64 (M, N), loads an int (the elements of the A and B tiles,
    summed over every step of every output tile). Leave a and b unchanged.
    """
    raise NotImplementedError("loop over output tiles, then over k-slices; count what each slice loads")
