import numpy as np


def tiled_matmul(a, b, tile_m, tile_n, tile_k):
    M, K = a.shape
    N = b.shape[1]
    c = np.zeros((M, N))
    loads = 0
    # One output tile at a time, as one thread block of a GPU kernel would compute it.
    for i in range(0, M, tile_m):
        for j in range(0, N, tile_n):
            # The accumulator has the output tile's shape, clipped at the matrix's edge.
            acc = np.zeros_like(c[i : i + tile_m, j : j + tile_n])
            for k0 in range(0, K, tile_k):
                # Slicing clips the tiles at the matrices' edges: only elements inside are loaded.
                a_tile = a[i : i + tile_m, k0 : k0 + tile_k]
                b_tile = b[k0 : k0 + tile_k, j : j + tile_n]
                loads += a_tile.size + b_tile.size
                acc += a_tile @ b_tile
            c[i : i + tile_m, j : j + tile_n] = acc
    return c, loads
