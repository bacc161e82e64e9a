import numpy as np


def paged_attend(q, k_pages, v_pages, block_table, n_tokens):
    block_size = k_pages.shape[1]
    tokens = np.arange(n_tokens)
    pages = tokens // block_size  # the page's position in the table, not its number
    rows = tokens % block_size
    scores = k_pages[pages, rows] @ q / np.sqrt(k_pages.shape[2])
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ v_pages[pages, rows]


def paged_append(pages, block_table, n_tokens, row, free_blocks):
    block_size = pages.shape[1]
    table = list(block_table)
    free = list(free_blocks)
    if n_tokens % block_size == 0:
        table.append(free.pop(0))
    new_pages = pages.copy()
    new_pages[table[n_tokens // block_size], n_tokens % block_size] = row
    return new_pages, table, free
