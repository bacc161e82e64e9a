import numpy as np


def ring_allreduce(xs):
    p = len(xs)
    chunks = np.array_split(np.arange(len(xs[0])), p)  # chunk c: the positions chunks[c]
    bufs = [np.array(x, dtype=np.float64) for x in xs]  # each rank's own copy; the caller's arrays stay as given
    log = []
    # Reduce-scatter: at step s, rank r passes on chunk r - s, which it added to in step s - 1.
    for s in range(p - 1):
        step = [(r, (r + 1) % p, (r - s) % p) for r in range(p)]
        for src, dst, c in step:
            # dst receives chunk c and sends another one (c + 1) this step, so its values before
            # the step are what the rank behind it reads, whatever order the transfers go in.
            bufs[dst][chunks[c]] = bufs[src][chunks[c]] + bufs[dst][chunks[c]]
        log.append(step)
    # Rank r now holds the complete sum of chunk r + 1. All-gather: pass the complete chunks on.
    for s in range(p - 1):
        step = [(r, (r + 1) % p, (r + 1 - s) % p) for r in range(p)]
        for src, dst, c in step:
            bufs[dst][chunks[c]] = bufs[src][chunks[c]]
        log.append(step)
    return bufs, log


def ring_elements_sent(n, p):
    q, rem = divmod(n, p)
    size = [q + 1 if c < rem else q for c in range(p)]  # the array_split layout's chunk sizes
    sent = [0] * p
    for s in range(p - 1):
        for r in range(p):
            sent[r] += size[(r - s) % p]  # reduce-scatter
            sent[r] += size[(r + 1 - s) % p]  # all-gather
    return sent
