"""Mistake: writes the row straight into the pool it was given (new_pages = pages makes no copy) and returns that same
array.
Expect: the returned pool is right but the pool passed in was modified; write into pages.copy().
"""

import numpy as np


def paged_attend(q, k_pages, v_pages, block_table, n_tokens):
    B = k_pages.shape[1]
    d = q.shape[0]
    keys = np.zeros((n_tokens, d))
    values = np.zeros((n_tokens, v_pages.shape[2]))
    for i in range(n_tokens):
        keys[i] = k_pages[block_table[i // B], i % B]
        values[i] = v_pages[block_table[i // B], i % B]
    scores = keys @ q / np.sqrt(d)
    w = np.exp(scores - scores.max())
    return (w / w.sum()) @ values


def paged_append(pages, block_table, n_tokens, row, free_blocks):
    B = pages.shape[1]
    table = list(block_table)
    free = list(free_blocks)
    if n_tokens == B * len(table):
        table.append(free[0])
        del free[0]
    new_pages = pages
    new_pages[table[n_tokens // B], n_tokens % B] = row
    return new_pages, table, free
