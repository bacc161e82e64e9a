"""Mistake: gathers every row of every page in the block table, so the unused rows of the last page (stale data) are
attended to as well.
Expect: rows past n_tokens in the last page were read; attend over the first n_tokens rows only.
"""

import numpy as np


def paged_attend(q, k_pages, v_pages, block_table, n_tokens):
    d = q.shape[0]
    keys = k_pages[block_table].reshape(-1, d)
    values = v_pages[block_table].reshape(-1, v_pages.shape[2])
    scores = keys @ q / np.sqrt(d)
    w = np.exp(scores - scores.max())
    w /= w.sum()
    return w @ values


def paged_append(pages, block_table, n_tokens, row, free_blocks):
    B = pages.shape[1]
    table = list(block_table)
    free = list(free_blocks)
    if n_tokens == len(table) * B:
        table.append(free.pop(0))
    new_pages = pages.copy()
    new_pages[table[n_tokens // B], n_tokens % B] = row
    return new_pages, table, free
