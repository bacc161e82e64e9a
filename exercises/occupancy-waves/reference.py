def ceil_div(a, b):
    return -(-a // b)


def occupancy(threads_per_block, regs_per_thread, smem_per_block, sm):
    warp_size = sm["warp_size"]
    # A block runs as whole warps: 100 threads take 4 warps of 32, that is 128 thread slots.
    warps = ceil_div(threads_per_block, warp_size)
    threads = warps * warp_size
    # Each limit is how many blocks one resource allows; they are kept in the order of the tie rule.
    limits = {"blocks": sm["max_blocks"], "threads": sm["max_threads"] // threads}
    if regs_per_thread > 0:
        # Registers are given to each warp in units of reg_unit.
        regs_per_warp = ceil_div(regs_per_thread * warp_size, sm["reg_unit"]) * sm["reg_unit"]
        limits["registers"] = sm["regs"] // (warps * regs_per_warp)
    if smem_per_block > 0:
        # Shared memory is given to each block in units of smem_unit.
        smem = ceil_div(smem_per_block, sm["smem_unit"]) * sm["smem_unit"]
        limits["shared_memory"] = sm["smem"] // smem
    blocks_per_sm = min(limits.values())
    # The first limit in order that binds names the limiter.
    limiter = next(name for name, limit in limits.items() if limit == blocks_per_sm)
    occupancy = blocks_per_sm * threads / sm["max_threads"]
    return blocks_per_sm, occupancy, limiter


def gemm_waves(m, n, tile_m, tile_n, n_sms, blocks_per_sm):
    # Edge tiles count whole: a partial tile still takes a block.
    n_tiles = ceil_div(m, tile_m) * ceil_div(n, tile_n)
    slots = n_sms * blocks_per_sm
    # Blocks run in waves of `slots`; the last wave may be partly idle.
    n_waves = ceil_div(n_tiles, slots)
    efficiency = m * n / (n_waves * slots * tile_m * tile_n)
    return n_tiles, n_waves, efficiency
