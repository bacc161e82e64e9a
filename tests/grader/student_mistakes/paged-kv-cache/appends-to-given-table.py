"""Mistake: appends the new page to the block_table list it was given and pops it from the given free list, so the
second call (for the values) sees a table and free list the first call already changed.
Expect: the table and free list passed in were modified; copy them (list(...)) before changing them.
"""

import numpy as np


def paged_attend(q, k_pages, v_pages, block_table, n_tokens):
    B = k_pages.shape[1]
    keys = []
    values = []
    for i in range(n_tokens):
        page = block_table[i // B]
        keys.append(k_pages[page, i % B])
        values.append(v_pages[page, i % B])
    keys = np.array(keys)
    values = np.array(values)
    s = keys @ q / np.sqrt(len(q))
    s = s - s.max()
    weights = np.exp(s) / np.exp(s).sum()
    return weights @ values


def paged_append(pages, block_table, n_tokens, row, free_blocks):
    B = pages.shape[1]
    if n_tokens % B == 0:
        block_table.append(free_blocks.pop(0))
    new_pages = pages.copy()
    new_pages[block_table[n_tokens // B], n_tokens % B] = row
    return new_pages, block_table, free_blocks
