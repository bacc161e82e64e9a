def run_blocks(num_blocks, block_size, ops):
    """Apply ops ("alloc", s, n), ("fork", src, dst), ("append", s), ("free", s) to a pool of
    num_blocks KV blocks of block_size tokens, sharing blocks by reference count and copying a
    shared, partly filled last block before writing to it.

    Returns (tables, free, copies): {sequence id: list of block ids} for the sequences alive at the
    end, the final free list, and the list of (old, new) copies in the order they were made.
    """
    raise NotImplementedError
