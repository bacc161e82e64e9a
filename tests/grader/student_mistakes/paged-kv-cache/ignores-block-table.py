"""Mistake: paged_attend reads the first n_tokens rows of the pool in page order (pages 0, 1, 2, …) instead of following
the block table.
Expect: the keys and values were read from the wrong pages; token i is in page block_table[i // B], row i % B.
"""

import numpy as np


def paged_attend(q, k_pages, v_pages, block_table, n_tokens):
    d = k_pages.shape[2]
    keys = k_pages.reshape(-1, d)[:n_tokens]
    values = v_pages.reshape(-1, v_pages.shape[2])[:n_tokens]
    scores = keys @ q / np.sqrt(d)
    weights = np.exp(scores - np.max(scores))
    weights = weights / np.sum(weights)
    return weights @ values


def paged_append(pages, block_table, n_tokens, row, free_blocks):
    block_size = pages.shape[1]
    table = list(block_table)
    free = list(free_blocks)
    if n_tokens // block_size == len(table):
        table.append(free[0])
        free = free[1:]
    out = pages.copy()
    out[table[n_tokens // block_size], n_tokens % block_size] = row
    return out, table, free
