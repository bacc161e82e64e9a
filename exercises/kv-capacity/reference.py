def kv_blocks(free_bytes, n_layers, n_kv_heads, head_dim, dtype_bytes, block_size):
    # A block holds a key and a value vector for block_size tokens, in every layer and KV head.
    block_bytes = 2 * n_layers * n_kv_heads * head_dim * dtype_bytes * block_size
    # Python ints are exact at any size: no float, no int64.
    return free_bytes // block_bytes


def max_seqs(num_blocks, block_size, seq_lens, max_len):
    # Paged: requests in the order given, each taking whole blocks; the first that does not fit ends the count.
    used = 0
    paged = 0
    for n in seq_lens:
        used += (n + block_size - 1) // block_size
        if used > num_blocks:
            break
        paged += 1
    # Contiguous: each request reserves max_len slots of one flat buffer of num_blocks * block_size slots.
    contiguous = min(len(seq_lens), num_blocks * block_size // max_len)
    return paged, contiguous
