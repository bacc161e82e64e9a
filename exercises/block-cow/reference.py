def run_blocks(num_blocks, block_size, ops):
    free = list(range(num_blocks))  # taken from the front, returned to the back
    refs = {}  # block id -> how many tables hold it
    tables, lengths, copies = {}, {}, []
    for op in ops:
        kind, s = op[0], op[1]
        if kind == "alloc":
            blocks = [free.pop(0) for _ in range(-(-op[2] // block_size))]
            for b in blocks:
                refs[b] = 1
            tables[s], lengths[s] = blocks, op[2]
        elif kind == "fork":
            dst = op[2]
            tables[dst], lengths[dst] = list(tables[s]), lengths[s]  # a new list: the blocks are shared
            for b in tables[dst]:
                refs[b] += 1
        elif kind == "append":
            table = tables[s]
            if lengths[s] % block_size == 0:  # the last block is full: a fresh one, no copy
                table.append(free.pop(0))
                refs[table[-1]] = 1
            elif refs[table[-1]] > 1:  # shared and not full: copy on write
                old, new = table[-1], free.pop(0)
                copies.append((old, new))
                refs[old] -= 1
                refs[new] = 1
                table[-1] = new
            lengths[s] += 1
        else:  # "free"
            for b in tables.pop(s):
                refs[b] -= 1
                if refs[b] == 0:
                    free.append(b)
    return tables, free, copies
