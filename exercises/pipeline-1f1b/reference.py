def _stage_ops(s, p, m, kind):
    """Stage s's op list, in the order it runs them: ("F", j) and ("B", j)."""
    if kind == "gpipe":
        return [("F", j) for j in range(m)] + [("B", j) for j in range(m)]
    w = min(p - s - 1, m)  # warm-up forwards
    ops = [("F", j) for j in range(w)]
    for i in range(m - w):  # steady state: one forward, one backward
        ops += [("F", w + i), ("B", i)]
    return ops + [("B", j) for j in range(m - w, m)]  # cool-down backwards


def _dependency(name, s, j, p):
    """The op on another stage that (name, s, j) waits for, or None."""
    if name == "F":
        return ("F", s - 1, j) if s > 0 else None
    return ("B", s + 1, j) if s < p - 1 else ("F", s, j)


def _timeline(t_fwd, t_bwd, n_micro, kind):
    """start and end of every op (name, s, j): each stage runs its list in order, as early as it can."""
    p = len(t_fwd)
    ops = [_stage_ops(s, p, n_micro, kind) for s in range(p)]
    start, end = {}, {}
    placed = [0] * p  # how many ops of each stage have a time
    free = [0] * p  # when each stage's last placed op ends
    for _ in range(2 * p * n_micro):  # one op per round
        for s in reversed(range(p)):  # a stage whose next op's dependency has a time
            if placed[s] < len(ops[s]):
                name, j = ops[s][placed[s]]
                dep = _dependency(name, s, j, p)
                if dep is None or dep in end:
                    break
        begin = free[s] if dep is None else max(free[s], end[dep])
        start[name, s, j] = begin
        end[name, s, j] = free[s] = begin + (t_fwd[s] if name == "F" else t_bwd[s])
        placed[s] += 1
    return start, end


def pipeline_schedule(t_fwd, t_bwd, n_micro, kind):
    start, end = _timeline(t_fwd, t_bwd, n_micro, kind)
    makespan = max(end.values())
    grid = [[""] * makespan for _ in t_fwd]
    for (name, s, j), begin in start.items():
        for t in range(begin, end[name, s, j]):
            grid[s][t] = f"{name}{j}"
    return grid


def pipeline_stats(t_fwd, t_bwd, n_micro, kind):
    start, end = _timeline(t_fwd, t_bwd, n_micro, kind)
    p, makespan = len(t_fwd), max(end.values())
    busy = n_micro * (sum(t_fwd) + sum(t_bwd))
    bubble = 1.0 - busy / (p * makespan)
    peaks = []
    for s in range(p):
        held = [0] * makespan  # micro-batches whose activations stage s holds during [t, t + 1)
        for j in range(n_micro):
            for t in range(start["F", s, j], end["B", s, j]):
                held[t] += 1
        peaks.append(max(held))
    return makespan, bubble, peaks
