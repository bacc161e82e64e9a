def kv_blocks(free_bytes, n_layers, n_kv_heads, head_dim, dtype_bytes, block_size):
    """How many KV blocks fit in free_bytes bytes.

    One block holds the key and the value vectors of block_size tokens, in every layer and every
    KV head. Return an exact int (free_bytes may exceed 2**63).
    """
    raise NotImplementedError("bytes of one block, then how many whole blocks fit")


def max_seqs(num_blocks, block_size, seq_lens, max_len):
    """How many of the requests fit, paged and contiguous.

    num_blocks blocks of block_size token slots; seq_lens: the requests' lengths, in order;
    max_len: the slots a contiguous cache reserves per request.
    Returns the tuple (paged, contiguous) of two ints. Leave seq_lens unchanged.
    """
    raise NotImplementedError("count the prefix of requests whose blocks fit, then the contiguous count")
