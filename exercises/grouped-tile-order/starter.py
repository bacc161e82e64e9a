def tile_order(num_pid_m, num_pid_n, group_m):
    """The output tile each program computes, in Triton's grouped launch order.

    num_pid_m × num_pid_n output tiles; group_m: the rows of tiles in one group (ints >= 1).
    Returns a list whose entry pid is the tuple (pid_m, pid_n) of two ints.
    """
    raise NotImplementedError("per pid: its group, the group's first row and size, then pid_m and pid_n")


def dram_bytes(m, n, k, block_m, block_n, group_m, wave, dtype_bytes):
    """The bytes of A and B panels loaded from DRAM when the programs run in waves.

    C (m, n) = A (m, k) @ B (k, n) in output tiles of block_m × block_n, launched in the order of
    tile_order(⌈m/block_m⌉, ⌈n/block_n⌉, group_m), wave consecutive programs at a time; within a
    wave each distinct A row panel and B column panel is loaded once, nothing is kept between waves.
    Returns an int.
    """
    raise NotImplementedError("cut the order into waves; in each, add every distinct panel's bytes once")
