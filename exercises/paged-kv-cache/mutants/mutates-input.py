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
    # Changes the table, the free list and the pool it was given, and returns them.
    if n_tokens % block_size == 0:
        block_table.append(free_blocks.pop(0))
    pages[block_table[n_tokens // block_size], n_tokens % block_size] = row
    return pages, block_table, free_blocks
