"""Checks for "Hiding the All-Reduce: a DDP Timeline".

The expected values are computed here by another route than a solution's. The time of an all-reduce
is added up step by step (2(p - 1) steps of one latency and one chunk of n/p bytes each), and the end
of bucket b comes from the closed form of a first-come queue served in list order,
end_b = max over k <= b of (R_k + the all-reduce times of buckets k..b), rather than from the
recurrence. A wrong answer is named by the grader, by comparing it with the exercise's mutants on the
same calls.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import numpy as np

from grader.checks import (
    Student,
    check,
    describe,
    expect_float,
    expect_sequence,
    fail,
    scaled_tolerance,
)

# --------------------------------------------------------------------------- independent expectation


def ring_time(nbytes: int, world: int, bandwidth: float, latency: float) -> float:
    """The ring all-reduce, one step at a time: each of its 2(p - 1) steps is a latency and a chunk."""
    total = 0.0
    for _ in range(2 * (world - 1)):
        total += latency + (nbytes / world) / bandwidth
    return total


def expected_timeline(ready, buckets, param_bytes, world, bandwidth, latency) -> tuple[list[float], float]:
    """end_b = max over k <= b of (R_k + T_k + ... + T_b): the bucket that last left the stream idle decides."""
    bucket_ready = [max(ready[i] for i in bucket) for bucket in buckets]
    times = [ring_time(sum(param_bytes[i] for i in bucket), world, bandwidth, latency) for bucket in buckets]
    ends = [max(bucket_ready[k] + sum(times[k : b + 1]) for k in range(b + 1)) for b in range(len(buckets))]
    return [float(e) for e in ends], float(ends[-1] - max(ready))


# --------------------------------------------------------------------------- comparing answers


def expect_timeline(got: Any, case: tuple, what: str) -> None:
    want_ends, want_exposed = expected_timeline(*case)
    ends, exposed = expect_sequence(got, 2, what=f"ddp_timeline's return value ({what})", hint="form")
    if type(ends) is not list:
        fail(f"ends ({what}) should be a list of floats, one per bucket, got {describe(ends)}", hint="form")
    if len(ends) != len(want_ends):
        fail(f"ends ({what}) has {len(ends)} items where {len(want_ends)} were expected (one per bucket)", hint="form")
    # Times reach thousands: an absolute floor of 1e-9 times the largest time, as the statement says.
    tolerance = scaled_tolerance([*want_ends, max(case[0])])
    for b, (end, want) in enumerate(zip(ends, want_ends, strict=True)):
        expect_float(end, want, what=f"ends[{b}] ({what})", hint="form", **tolerance)
    expect_float(exposed, want_exposed, what=f"exposed ({what})", hint="form", **tolerance)


def run_timelines(student: Student, cases: list[tuple[tuple, str]]) -> None:
    results = student.ddp_timeline.each([case for case, _ in cases])
    for (case, what), got in zip(cases, results, strict=True):
        expect_timeline(got, case, what)


def run_times(student: Student, cases: list[tuple[tuple, str]]) -> None:
    results = student.allreduce_time.each([case for case, _ in cases])
    for (case, what), got in zip(cases, results, strict=True):
        want = ring_time(*case)
        if case[1] == 1:  # a single rank: exactly 0.0
            expect_float(got, 0.0, what=f"the all-reduce time ({what})", hint="form", rtol=0.0, atol=0.0)
        else:
            expect_float(got, want, what=f"the all-reduce time ({what})", hint="form", **scaled_tolerance(want))


def random_buckets(rng: np.random.Generator, n: int) -> list[list[int]]:
    """A partition of range(n) into non-empty buckets, in a random order."""
    order = [int(i) for i in rng.permutation(n)]
    n_buckets = int(rng.integers(1, n + 1))
    cuts = sorted(int(c) for c in rng.choice(np.arange(1, n), size=n_buckets - 1, replace=False)) if n > 1 else []
    bounds = [0, *cuts, n]
    return [order[a:b] for a, b in pairwise(bounds)]


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2, hint="one-stream")
def worked_example(student: Student) -> None:
    case = ([9, 7, 4, 1], [[3, 2], [1, 0]], [100, 300, 200, 600], 2, 100, 1)
    ends, exposed = expect_sequence(student.ddp_timeline(*case), 2, what="ddp_timeline's return value", hint="form")
    if type(ends) is not list:
        fail(f"ends should be a list of floats, got {describe(ends)}", hint="form")
    if len(ends) != 2:
        fail(f"ends should hold 2 floats, one per bucket, got {len(ends)}", hint="form")
    expect_float(ends[0], 14.0, what="ends[0] of the worked example", hint="form", rtol=1e-9, atol=1e-9)
    expect_float(ends[1], 20.0, what="ends[1] of the worked example", hint="form", rtol=1e-9, atol=1e-9)
    expect_float(exposed, 11.0, what="exposed of the worked example", hint="form", rtol=1e-9, atol=1e-9)


@check("Head-of-line blocking: the statement's second example", public=True, hint="one-stream")
def worked_head_of_line(student: Student) -> None:
    ends, exposed = expect_sequence(
        student.ddp_timeline([1, 2, 10], [[2, 0], [1]], [100, 100, 100], 2, 100, 0),
        2,
        what="ddp_timeline's return value",
        hint="form",
    )
    if type(ends) is not list or len(ends) != 2:
        fail(f"ends should be a list of 2 floats, got {describe(ends)}", hint="form")
    expect_float(ends[0], 12.0, what="ends[0] (head-of-line example)", hint="form", rtol=1e-9, atol=1e-9)
    expect_float(ends[1], 13.0, what="ends[1] (head-of-line example)", hint="form", rtol=1e-9, atol=1e-9)
    expect_float(exposed, 3.0, what="exposed (head-of-line example)", hint="form", rtol=1e-9, atol=1e-9)


@check("allreduce_time on the statement's examples, and a single rank", public=True, hint="ring-cost")
def worked_allreduce_times(student: Student) -> None:
    two, four, one = student.allreduce_time.each([(800, 2, 100, 1), (1000, 4, 50, 2), (800, 1, 100, 1)])
    expect_float(two, 10.0, what="the all-reduce time of 800 bytes on 2 ranks", hint="form", rtol=1e-9, atol=1e-9)
    expect_float(four, 42.0, what="the all-reduce time of 1000 bytes on 4 ranks", hint="form", rtol=1e-9, atol=1e-9)
    expect_float(one, 0.0, what="the all-reduce time on a single rank", hint="single-rank", rtol=0.0, atol=0.0)


@check("ddp_timeline returns a tuple (ends, exposed) of floats, even for int inputs", public=True, hint="form")
def return_forms(student: Student) -> None:
    result = student.ddp_timeline([3, 5, 2], [[2], [1, 0]], [8, 4, 4], 1, 2, 1)
    if type(result) is not tuple or len(result) != 2:
        fail(f"ddp_timeline should return a tuple (ends, exposed), got {describe(result)}", hint="form")
    ends, exposed = result
    if type(ends) is not list or len(ends) != 2:
        fail(f"ends should be a list of 2 floats, one per bucket, got {describe(ends)}", hint="form")
    expect_float(ends[0], 2.0, what="ends[0] on a single rank", hint="form", rtol=1e-9, atol=1e-9)
    expect_float(ends[1], 5.0, what="ends[1] on a single rank", hint="form", rtol=1e-9, atol=1e-9)
    expect_float(exposed, 0.0, what="exposed on a single rank", hint="form", rtol=1e-9, atol=1e-9)


@check("allreduce_time for many sizes, rank counts, bandwidths and latencies", hint="ring-cost")
def allreduce_times(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k in range(30):
        world = int(rng.integers(2, 65))
        if k % 2:  # a float bandwidth that makes a chunk take about as long as a latency
            nbytes = int(rng.integers(1, 10 ** int(rng.integers(1, 11))))
            bandwidth = nbytes / world / float(rng.uniform(0.2, 40.0))
        else:
            nbytes = int(rng.integers(0, 1000 * world))
            bandwidth = int(rng.integers(1, 100))
        if k % 3 == 0:
            nbytes = world * int(rng.integers(1, 1000)) + int(rng.integers(1, world))  # not a multiple of p
        latency = float(rng.uniform(0.5, 20.0)) if k % 4 else 0
        cases.append(((nbytes, world, bandwidth, latency), f"case {k + 1} of 30"))
    cases.append(((7, 2, 0.25, 0.5), "two ranks, few bytes"))
    cases.append(((0, 8, 3.0, 1.5), "no bytes: latency alone"))
    cases.append(((10**15 + 3, 4096, 2.5e4, 5.0), "a petabyte over 4096 ranks"))
    run_times(student, cases)


@check("A single rank communicates nothing: exactly 0.0", hint="single-rank")
def single_rank(student: Student, rng: np.random.Generator) -> None:
    run_times(
        student,
        [
            ((0, 1, 1.0, 0.0), "a single rank, no bytes"),
            ((123457, 1, 3.5, 7.25), "a single rank, some bytes and a latency"),
            ((10**12, 1, 0.001, 1e6), "a single rank, huge bytes and latency"),
        ],
    )
    cases = []
    for k in range(4):
        n = int(rng.integers(1, 12))
        ready = [float(t) for t in rng.uniform(0.0, 50.0, size=n)]
        sizes = [int(b) for b in rng.integers(1, 5000, size=n)]
        cases.append(((ready, random_buckets(rng, n), sizes, 1, float(rng.uniform(1, 50)), 4.0), f"one rank {k + 1}"))
    run_timelines(student, cases)


@check("Random timelines: buckets of any order, gradients ready in any order", hint="one-stream")
def random_timelines(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k in range(30):
        n = int(rng.integers(1, 16))
        ready = [float(t) for t in rng.uniform(0.0, 100.0, size=n)]
        if k % 3 == 0:
            ready = [int(t) for t in rng.integers(0, 40, size=n)]  # int times, with ties
        sizes = [int(b) for b in rng.integers(1, 2000, size=n)]
        world = int(rng.integers(2, 17))
        latency = float(rng.uniform(0.0, 5.0)) if k % 2 else int(rng.integers(0, 4))
        case = (ready, random_buckets(rng, n), sizes, world, float(rng.uniform(10.0, 500.0)), latency)
        cases.append((case, f"timeline {k + 1} of 30, {n} parameters"))
    run_timelines(student, cases)


@check("One late gradient in an early bucket delays every bucket after it", hint="one-stream")
def head_of_line(student: Student) -> None:
    cases = [
        # Bucket 0 waits for the latest gradient of all; buckets 1..3 were ready long before.
        (([1, 2, 3, 4, 5, 50], [[0, 5], [4], [3, 2], [1]], [10, 20, 30, 40, 50, 60], 4, 20, 1), "a late first bucket"),
        # Bucket 1 is late; bucket 2 is ready early and is blocked behind it.
        (([12, 2, 30, 1, 3], [[3, 4], [1, 2], [0]], [100, 200, 300, 400, 500], 2, 50, 2), "a late middle bucket"),
        # The last buckets are ready before the first: they all queue.
        (([5, 4, 3, 2, 20], [[4], [3], [2], [1], [0]], [64, 64, 64, 64, 64], 8, 16, 0.5), "every bucket queued"),
    ]
    run_timelines(student, cases)


@check("Gaps: the stream idles until a bucket is ready, and starts exactly at a tie", hint="overlap")
def idle_gaps(student: Student) -> None:
    cases = [
        # Each bucket ready long after the previous one has ended: no waiting at all.
        (([100, 70, 40, 10], [[3], [2], [1], [0]], [200, 200, 200, 200], 2, 100, 1), "buckets far apart"),
        # Bucket 1 is ready exactly when bucket 0 ends (10 + 2 + 4 = 16); bucket 2 is ready while bucket 1 runs.
        (([17, 16, 10], [[2], [1], [0]], [100, 400, 400], 2, 100, 1), "a bucket ready exactly at the previous end"),
        # Ready times 0: the stream starts at time 0.
        (([0, 0, 0, 0], [[3, 2], [1, 0]], [50, 50, 50, 50], 3, 10, 2), "everything ready at time 0"),
        # Zero-byte parameters still pay the latency.
        (([4, 3, 1], [[2], [1], [0]], [0, 0, 30], 4, 10, 1.5), "buckets of zero bytes"),
    ]
    run_timelines(student, cases)


@check("The exposed time counts from the latest gradient, wherever it is", hint="exposed")
def exposed_from_latest(student: Student) -> None:
    cases = [
        # The latest gradient (index 0, at 40) is in the first bucket; the last bucket was ready at 5.
        (
            ([40, 5, 3, 1], [[0, 3], [2], [1]], [100, 100, 100, 100], 2, 20, 1),
            "the latest gradient in the first bucket",
        ),
        (
            ([9, 30, 1, 2, 3], [[4, 3], [1], [2, 0]], [10, 10, 500, 10, 10], 4, 25, 0.25),
            "the latest in a middle bucket",
        ),
        (([2, 8, 6], [[1, 2, 0]], [300, 100, 200], 6, 60, 3), "a single bucket"),
        (([0.5], [[0]], [1000], 16, 100.0, 0.125), "a single parameter"),
    ]
    run_timelines(student, cases)


@check("A DDP backward: 25 MiB buckets on 8 ranks, gradients ready last layer first", hint="one-stream")
def ddp_backward(student: Student) -> None:
    d, layers = 2048, 12
    sizes = [4 * 50000 * d]  # the embedding, ready last
    for _ in range(layers):
        sizes += [4 * d, 4 * 3 * d * d, 4 * d * d, 4 * d, 4 * 4 * d * d, 4 * 4 * d * d]
    n = len(sizes)
    # Backward at 4 GB/s of gradients (4000 bytes per µs), from the last parameter to the first.
    ready, clock = [0.0] * n, 0.0
    for i in range(n - 1, -1, -1):
        clock += sizes[i] / 4000.0
        ready[i] = clock
    # Buckets by DDP's rule: close once 1 MiB (the first) or 25 MiB (later) is reached.
    buckets, current, total = [], [], 0
    for i in range(n - 1, -1, -1):
        current.append(i)
        total += sizes[i]
        if total >= (25 if buckets else 1) * 2**20:
            buckets.append(current)
            current, total = [], 0
    if current:
        buckets.append(current)
    cases = [
        ((ready, buckets, sizes, 8, 25000.0, 8.0), "12 layers, 8 ranks, a fast network"),
        ((ready, buckets, sizes, 8, 2500.0, 30.0), "12 layers, 8 ranks, a slow network"),
        ((ready, [list(range(n - 1, -1, -1))], sizes, 8, 25000.0, 8.0), "12 layers, 8 ranks, a single bucket"),
    ]
    run_timelines(student, cases)


@check("ready, buckets and param_bytes are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    ready, buckets, sizes = [6.0, 1.0, 9.0, 3.0, 2.0], [[0, 1], [3, 2], [4]], [100, 200, 300, 400, 500]
    # The same lists for both calls of one crossing: a call that changes them changes the second answer.
    case = (ready, buckets, sizes, 4, 50.0, 1.0)
    run_timelines(student, [(case, "call 1 of 2 with the same lists"), (case, "call 2 of 2 with the same lists")])
