def matmul_cost(m, n, k, dtype_bytes):
    # Each of the m·n outputs sums k products: k multiplies and k adds.
    flops = 2 * m * n * k
    # The least traffic: read A (m, k) and B (k, n) once each, write C (m, n) once.
    nbytes = dtype_bytes * (m * k + k * n + m * n)
    return flops, nbytes


def roofline(flops, nbytes, peak_flops, bandwidth):
    t_compute = float(flops) / float(peak_flops)
    t_memory = float(nbytes) / float(bandwidth)
    # Computing and moving data overlap, so the slower of the two sets the time.
    seconds = max(t_compute, t_memory)
    # An exact tie counts as compute-bound.
    bound = "memory" if t_memory > t_compute else "compute"
    return seconds, bound
