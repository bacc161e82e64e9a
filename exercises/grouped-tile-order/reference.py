def tile_order(num_pid_m, num_pid_n, group_m):
    per_group = group_m * num_pid_n
    order = []
    for pid in range(num_pid_m * num_pid_n):
        first_pid_m = (pid // per_group) * group_m
        # The last group holds only the rows that are left.
        group_size_m = min(num_pid_m - first_pid_m, group_m)
        # Down the group's rows first, then on to the next column.
        pid_m = first_pid_m + (pid % per_group) % group_size_m
        pid_n = (pid % per_group) // group_size_m
        order.append((pid_m, pid_n))
    return order


def dram_bytes(m, n, k, block_m, block_n, group_m, wave, dtype_bytes):
    num_pid_m = -(-m // block_m)
    num_pid_n = -(-n // block_n)
    order = tile_order(num_pid_m, num_pid_n, group_m)
    total = 0
    for start in range(0, len(order), wave):
        running = order[start : start + wave]
        # Programs of one wave share the panels they have in common: each is loaded once.
        for pid_m in {pid_m for pid_m, _ in running}:
            total += min(block_m, m - pid_m * block_m) * k * dtype_bytes
        for pid_n in {pid_n for _, pid_n in running}:
            total += min(block_n, n - pid_n * block_n) * k * dtype_bytes
    return total
