import numpy as np  # noqa: F401  (you will need it)


def paged_attend(q, k_pages, v_pages, block_table, n_tokens):
    """Attention of one query over a sequence whose keys and values are stored in pages.

    q: the query, shape (d,).
    k_pages, v_pages: the key and value pools, each of shape (n_blocks, block_size, d).
    block_table: list of ints, the sequence's pages in order; token i is in page
        block_table[i // block_size], row i % block_size.
    n_tokens: how many tokens the sequence holds (at least 1).
    Returns out, shape (d,).
    """
    raise NotImplementedError("gather the n_tokens keys and values through the block table, then attend")


def paged_append(pages, block_table, n_tokens, row, free_blocks):
    """Write token number n_tokens (its key or its value) into a pool of pages.

    pages: one pool, shape (n_blocks, block_size, d); row: shape (d,).
    block_table, free_blocks: lists of ints.
    Returns (new_pages, new_block_table, new_free_blocks); the arguments are left unchanged.
    """
    raise NotImplementedError("take free_blocks[0] if the last page is full, then write the row")
