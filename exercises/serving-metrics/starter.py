import numpy as np  # noqa: F401  (np.percentile may help)


def serving_metrics(arrivals, token_times, slo_ttft, slo_tpot):
    """The latency and throughput figures of a serving trace.

    arrivals: N arrival times (seconds); token_times: N non-empty lists, the times request i
    received each of its tokens; slo_ttft, slo_tpot: the service-level objectives (seconds).
    Returns a dict with exactly the keys "mean_ttft", "p99_ttft", "mean_tpot", "mean_itl",
    "p99_itl", "throughput", "goodput" and "slo_attainment", each a float.
    """
    raise NotImplementedError("TTFT, TPOT and ITL per request, then the statistics and the rates")
