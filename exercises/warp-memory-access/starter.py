def global_sectors(addrs, access_bytes, sector_bytes):
    """The number of distinct sector_bytes-sized sectors that one warp's access touches.

    addrs: a 1-D int64 array of byte addresses, one per thread (negative: an inactive thread).
    Each active thread at a accesses the bytes a … a + access_bytes − 1. Returns an int.
    """
    raise NotImplementedError("collect the sector of every accessed byte, then count the distinct ones")


def bank_conflict_degree(addrs, access_bytes, n_banks, word_bytes):
    """The number of serialized passes of one warp's shared-memory access: 1 means conflict-free.

    Word w (bytes w·word_bytes … ) lives in bank w mod n_banks; threads reading the same word share it.
    Returns the largest number of distinct words in one bank, an int (0 if no thread is active).
    """
    raise NotImplementedError("collect the distinct words, then count them per bank")
