def pipeline_schedule(t_fwd, t_bwd, n_micro, kind):
    """The timeline of a pipeline schedule, one row per stage.

    t_fwd, t_bwd: lists of p ints >= 1, the forward and backward time of each stage (stage 0 first).
    n_micro: m >= 1 micro-batches. kind: "gpipe" or "1f1b".
    Returns a list of p lists of T strings, T the makespan: cell [s][t] is "F{j}" or "B{j}" while
    stage s runs that op during [t, t + 1), and "" when it is idle. Leave the inputs unchanged.
    """
    raise NotImplementedError("build each stage's op list, then time every op")


def pipeline_stats(t_fwd, t_bwd, n_micro, kind):
    """(makespan, bubble, peak_in_flight) of the same schedule.

    makespan: the latest end time (an int). bubble: the idle fraction of the p x T cells (a float).
    peak_in_flight: for each stage, the most micro-batches j with start(F(s, j)) <= t < end(B(s, j))
    at any integer time t (a list of p ints).
    """
    raise NotImplementedError("time every op, then measure the timeline")
