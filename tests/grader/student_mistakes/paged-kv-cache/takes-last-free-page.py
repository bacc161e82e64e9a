"""Mistake: takes the new page with pop(), the last entry of the free list, instead of free_blocks[0], the first.
Expect: the wrong free page was taken; pages are handed out from the front of free_blocks.
"""

import numpy as np


def paged_attend(q, k_pages, v_pages, block_table, n_tokens):
    B = k_pages.shape[1]
    idx = np.arange(n_tokens)
    pages = np.asarray(block_table)[idx // B]
    k = k_pages[pages, idx % B]
    v = v_pages[pages, idx % B]
    s = k @ q / np.sqrt(q.shape[0])
    w = np.exp(s - s.max())
    return (w / w.sum()) @ v


def paged_append(pages, block_table, n_tokens, row, free_blocks):
    B = pages.shape[1]
    new_table = list(block_table)
    new_free = list(free_blocks)
    if n_tokens >= len(new_table) * B:
        new_table.append(new_free.pop())
    new_pages = pages.copy()
    new_pages[new_table[-1], n_tokens % B] = row
    return new_pages, new_table, new_free
