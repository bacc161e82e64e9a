import itertools

import numpy as np


def mean(xs):
    # A statistic over an empty list is 0.0.
    return sum(xs) / len(xs) if xs else 0.0


def p99(xs):
    # np.percentile's default method interpolates linearly between the two nearest ranks.
    return float(np.percentile(xs, 99)) if xs else 0.0


def serving_metrics(arrivals, token_times, slo_ttft, slo_tpot):
    ttft = [token_times[i][0] - arrivals[i] for i in range(len(arrivals))]
    # One TPOT per request with at least two tokens: the decode time spread over its n - 1 gaps.
    tpot = {i: (times[-1] - times[0]) / (len(times) - 1) for i, times in enumerate(token_times) if len(times) > 1}
    # ITL: every gap between consecutive tokens, of every request, in one pool.
    itl = [later - earlier for times in token_times for earlier, later in itertools.pairwise(times)]
    good = 0
    for i, first in enumerate(ttft):
        if first <= slo_ttft and (i not in tpot or tpot[i] <= slo_tpot):
            good += 1
    duration = max(times[-1] for times in token_times) - min(arrivals)
    return {
        "mean_ttft": mean(ttft),
        "p99_ttft": p99(ttft),
        "mean_tpot": mean(list(tpot.values())),
        "mean_itl": mean(itl),
        "p99_itl": p99(itl),
        "throughput": sum(len(times) for times in token_times) / duration,
        "goodput": good / duration,
        "slo_attainment": good / len(arrivals),
    }
