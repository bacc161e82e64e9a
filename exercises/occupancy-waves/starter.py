def occupancy(threads_per_block, regs_per_thread, smem_per_block, sm):
    """How many blocks of this kernel fit on one SM, the occupancy that gives, and what limits it.

    sm is a dict of ints: "warp_size", "max_threads", "max_blocks", "regs", "reg_unit",
    "smem" (bytes) and "smem_unit" (bytes). Returns the tuple (blocks_per_sm, occupancy, limiter):
    an int, a float, and one of "blocks", "threads", "registers", "shared_memory". Leave sm unchanged.
    """
    raise NotImplementedError("round to whole warps and allocation units, then take the smallest of four limits")


def gemm_waves(m, n, tile_m, tile_n, n_sms, blocks_per_sm):
    """Tiles of an m × n output, the waves they run in, and the share of the launched work that is useful.

    Returns the tuple (n_tiles, n_waves, efficiency): two ints and a float.
    """
    raise NotImplementedError("count the tiles, then the waves of n_sms · blocks_per_sm blocks")
