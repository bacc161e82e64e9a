"""Hidden checks for "A Radix Prefix Cache with LRU Eviction".

Expected hits come from a second simulator written here. It keeps the cached tokens as a set of
prefix tuples with a dict of last-use times, and no child counts: before each eviction it finds
the leaves afresh, as the cached prefixes that are no other cached prefix's parent, and it takes
the match as the longest prefix of the request found in the set (every length tried). It also
asserts the statement's claim that two leaves never share a last-use time. The worked examples are
computed by hand. A wrong answer is named by the grader, by comparing it with the exercise's
mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, fail

Reqs = list[list[int]]


# --------------------------------------------------------------------------- independent simulator


def expected_hits(reqs: Reqs, capacity: int) -> list[int]:
    cached: set[tuple[int, ...]] = set()
    last: dict[tuple[int, ...], int] = {}
    hits = []
    for r, req in enumerate(reqs):
        x = tuple(int(t) for t in req)
        m = max((j for j in range(1, len(x) + 1) if x[:j] in cached), default=0)
        for j in range(1, m + 1):
            last[x[:j]] = r
        hits.append(min(m, len(x) - 1))
        while len(cached) + (len(x) - m) > capacity:
            leaves = cached - {p[:-1] for p in cached}
            oldest = sorted(leaves, key=lambda p: last[p])
            assert len(oldest) < 2 or last[oldest[0]] != last[oldest[1]], "two leaves share a last-use time"
            assert last[oldest[0]] < r, "the eviction reached the matched prefix"
            cached.remove(oldest[0])
            del last[oldest[0]]
        for j in range(m + 1, len(x) + 1):
            cached.add(x[:j])
            last[x[:j]] = r
    return hits


def random_requests(rng: np.random.Generator, n: int, capacity: int, vocab: int) -> Reqs:
    """Multi-turn conversations over a few shared system prompts: repeats, continuations, truncations."""
    prompts = [list(map(int, rng.integers(0, vocab, size=int(rng.integers(1, capacity // 2 + 2))))) for _ in range(3)]
    reqs: Reqs = []
    while len(reqs) < n:
        roll = rng.random()
        if reqs and roll < 0.35:  # the next turn of an earlier conversation
            base = reqs[int(rng.integers(0, len(reqs)))]
            req = base + list(map(int, rng.integers(0, vocab, size=int(rng.integers(1, 5)))))
        elif reqs and roll < 0.45:  # the same request again
            req = list(reqs[int(rng.integers(0, len(reqs)))])
        elif reqs and roll < 0.55:  # a prefix of an earlier request
            base = reqs[int(rng.integers(0, len(reqs)))]
            req = base[: int(rng.integers(1, len(base) + 1))]
        else:  # a new conversation on a system prompt, or on none
            start = prompts[int(rng.integers(0, 3))] if rng.random() < 0.8 else []
            req = start + list(map(int, rng.integers(0, vocab, size=int(rng.integers(1, 6)))))
        reqs.append(req[:capacity])
    return reqs


# --------------------------------------------------------------------------- comparing answers


def expect_hits(got: Any, want: list[int], what: str) -> None:
    if type(got) is not list:
        fail(f"the hits ({what}) should be a list of ints, got {describe(got)}", hint="form")
    if len(got) != len(want):
        fail(f"the hits ({what}) should hold one int per request, got a list of {len(got)}", hint="form")
    for value in got:
        if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
            fail(f"each hit count ({what}) should be an int, got {describe(value)}", hint="form")
    first = next((r for r, (a, b) in enumerate(zip(got, want, strict=True)) if a != b), None)
    if first is not None:
        wrong = sum(a != b for a, b in zip(got, want, strict=True))
        fail(f"the hits ({what}) differ from the expected ones: first at request {first} ({wrong} of {len(want)} "
             "requests differ)", hint=None, expected=want, got=got)  # fmt: skip


def serve(student: Student, cases: list[tuple[Reqs, int, str]]) -> None:
    """Every case in one crossing, each compared with the independent simulator."""
    results = student.radix_reuse.each([(reqs, capacity) for reqs, capacity, _ in cases])
    for (reqs, capacity, what), got in zip(cases, results, strict=True):
        expect_hits(got, expected_hits(reqs, capacity), what)


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2, hint="refresh")
def worked_example(student: Student) -> None:
    first = [[1, 2, 3], [4, 5, 6], [1, 2, 3], [7, 8], [4, 5, 6, 9]]
    second = [[1, 2], [3, 4], [1, 2, 5]]
    got_first, got_second = student.radix_reuse.each([(first, 7), (second, 3)])
    expect_hits(got_first, [0, 0, 2, 0, 2], "the first example")
    expect_hits(got_second, [0, 0, 1], "the example where only leaves go")


@check("The hits are a list of ints, one per request", public=True, hint="form")
def result_form(student: Student) -> None:
    expect_hits(student.radix_reuse([[5], [5, 6], [5, 6, 7]], 10), [0, 1, 2], "three growing requests")


@check("The last token is always computed", hint="last-token")
def last_token(student: Student) -> None:
    serve(
        student,
        [
            ([[3, 1, 4], [3, 1, 4], [3, 1, 4]], 5, "a request repeated"),
            ([[2, 7, 1, 8], [2, 7], [2]], 8, "prefixes of a cached request"),
            ([[9], [9], [9], [8], [9]], 2, "one-token requests"),
            ([[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6, 7], [1, 2, 3]], 7, "a request that fills the cache"),
        ],
    )


@check("The match stops at the first token that is not cached", hint="match")
def match_stops(student: Student) -> None:
    serve(
        student,
        [
            ([[1, 2], [1, 5, 2]], 8, "a request that differs in its second token"),
            ([[4, 5, 6, 7], [4, 0, 5, 6, 7, 8]], 10, "a token inserted into a cached request"),
            ([[1, 2, 3], [9, 1, 2, 3]], 8, "a cached request shifted by one token"),
        ],
    )


@check("A hit refreshes the last-use of the tokens it reuses", hint="refresh")
def hit_is_use(student: Student) -> None:
    serve(
        student,
        [
            ([[1, 2], [3, 4], [1, 2, 9], [5, 6], [3, 4, 8], [1, 2, 7]], 6, "an old prefix kept alive by its hits"),
            ([[1, 2, 3], [4, 5, 6], [1, 2], [7, 8, 9], [1, 2, 3], [4, 5, 6]], 7, "a partial hit that refreshes"),
            ([[6, 6, 6, 6], [5, 5], [6, 6, 6, 6, 6], [4, 4], [5, 5, 5]], 8, "a long prefix refreshed twice"),
        ],
    )


@check("Only leaves are evicted, one token at a time", hint="leaves")
def leaves_only(student: Student) -> None:
    serve(
        student,
        [
            ([[1, 2, 3, 4], [5, 6], [1, 2, 3, 7]], 5, "a long old path shortened from its end"),
            ([[1, 2, 3], [1, 4, 5], [6, 7, 8], [1, 2, 9]], 6, "a branch point that outlives its leaves"),
            ([[1, 2, 3, 4, 5], [6], [7], [1, 2, 3, 4, 5]], 5, "one token at a time off a chain"),
            ([[2, 3], [2, 4], [2, 5], [6, 7, 8], [2, 3, 3]], 5, "three leaves under one token"),
        ],
    )


@check("The cache evicts exactly enough tokens for the new ones", hint="capacity")
def exact_room(student: Student) -> None:
    serve(
        student,
        [
            (
                [[1, 2, 3], [4, 5], [1, 2, 3, 6], [4, 5, 7]],
                6,
                "a cache filled exactly by a request that extends another",
            ),
            ([[1, 2], [3, 4], [1, 2, 5], [3, 4, 6]], 4, "a full cache whose oldest leaf is the matched prefix"),
            ([[1, 2, 3], [4, 5], [1, 2, 3, 6]], 5, "a full cache, and a request that extends a cached one"),
            ([[1, 2], [3, 4], [5, 6], [1, 2], [3, 4]], 4, "room for two requests of two"),
            ([[7, 7, 7], [7, 7, 8], [7, 9]], 4, "requests that share their first tokens"),
            ([[1, 2, 3, 4], [5, 6, 7, 8], [1, 2, 3, 4]], 4, "each request as large as the cache"),
        ],
    )


@check("Long random traces of conversations sharing system prompts", points=2, hint="refresh")
def random_traces(student: Student, rng: np.random.Generator) -> None:
    cases = []
    plan = [(40, 8, 3), (60, 12, 4), (60, 20, 6), (80, 30, 3), (80, 16, 50), (100, 40, 5), (60, 5, 2)]
    for k, (n, capacity, vocab) in enumerate(plan):
        cases.append((random_requests(rng, n, capacity, vocab), capacity, f"random trace {k + 1} of {len(plan)}"))
    serve(student, cases)


@check("Token ids may be numpy integers", hint="form")
def numpy_ids(student: Student) -> None:
    reqs = [list(np.array(req, dtype=np.int64)) for req in ([4, 2], [4, 2, 0], [1], [4, 2, 0, 9])]
    expect_hits(student.radix_reuse(reqs, 5), expected_hits(reqs, 5), "requests of numpy ints")


@check("reqs is left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    reqs = [[1, 2, 3], [1, 2, 4], [5], [1, 2, 3, 6]]
    # The same list twice in one batch: a first call that changes it changes what the second sees.
    first, second = student.radix_reuse.each([(reqs, 5), (reqs, 5)])
    want = expected_hits(reqs, 5)
    expect_hits(first, want, "the first call")
    expect_hits(second, want, "a second call with the same requests")
