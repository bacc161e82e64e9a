import numpy as np


def paged_attend(q, k_pages, v_pages, block_table, n_tokens):
    block_size = k_pages.shape[1]
    tokens = np.arange(n_tokens)
    pages = np.asarray(block_table)[tokens // block_size]
    rows = tokens % block_size
    scores = k_pages[pages, rows] @ q / np.sqrt(k_pages.shape[2])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ v_pages[pages, rows]


def paged_append(pages, block_table, n_tokens, row, free_blocks):
    block_size = pages.shape[1]
    table = list(block_table)
    free = list(free_blocks)
    # A new page is taken from the free list, but never added to the table.
    page = free.pop(0) if n_tokens % block_size == 0 else table[n_tokens // block_size]
    new_pages = pages.copy()
    new_pages[page, n_tokens % block_size] = row
    return new_pages, table, free
