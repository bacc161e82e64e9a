def kernel_traffic(ops, groups, nbytes, outputs):
    # Which kernel runs each op.
    kernel_of = {}
    for g, members in enumerate(groups):
        for i in members:
            kernel_of[i] = g
    read_bytes = 0
    write_bytes = 0
    for g, members in enumerate(groups):
        produced = {ops[i][0] for i in members}
        consumed = {name for i in members for name in ops[i][1]}
        # What the kernel needs and does not make itself comes from memory, once per kernel.
        read_bytes += sum(nbytes[name] for name in consumed - produced)
        # A result must reach memory if it is a graph output or another kernel reads it.
        read_elsewhere = {name for j, (_, ins) in enumerate(ops) if kernel_of[j] != g for name in ins}
        for name in produced:
            if name in outputs or name in read_elsewhere:
                write_bytes += nbytes[name]
    return read_bytes, write_bytes
