import numpy as np


def paged_attend(q, k_pages, v_pages, block_table, n_tokens):
    d = k_pages.shape[2]
    # Every row of every page in the table, the unused rows of the last page included.
    keys = k_pages[block_table].reshape(-1, d)
    values = v_pages[block_table].reshape(-1, d)
    scores = keys @ q / np.sqrt(d)
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    return weights @ values


def paged_append(pages, block_table, n_tokens, row, free_blocks):
    block_size = pages.shape[1]
    table = list(block_table)
    free = list(free_blocks)
    if n_tokens % block_size == 0:
        table.append(free.pop(0))
    new_pages = pages.copy()
    new_pages[table[n_tokens // block_size], n_tokens % block_size] = row
    return new_pages, table, free
