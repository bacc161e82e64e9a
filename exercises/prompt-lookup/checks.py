"""Hidden checks for "Prompt Lookup: Drafting from the Context".

Expected drafts come from a vectorised search written here: every window of n tokens that starts
before the pattern is compared with the pattern at once (numpy's sliding_window_view), and the
first True is the earliest start. Expected passes come from a second simulation that keeps the
whole sequence (prompt + target) and reads each context as a prefix of it. The statement's
examples were worked out by hand. A wrong answer is named by the grader, by comparing it with the
exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from grader.checks import Student, check, describe, fail, values_shown

# --------------------------------------------------------------------------- independent reference


def expected_draft(tokens: list[int], min_n: int, max_n: int, k: int) -> list[int]:
    seq = np.asarray([int(t) for t in tokens], dtype=np.int64)
    L = len(seq)
    for n in range(max_n, min_n - 1, -1):
        if n >= L:
            continue
        # The windows of seq[:L - 1] start at 0 … L − 1 − n: every start before the pattern's own.
        windows = sliding_window_view(seq[: L - 1], n)
        starts = np.flatnonzero((windows == seq[L - n :]).all(axis=1))
        if starts.size:
            s = int(starts[0])
            return [int(t) for t in seq[s + n : s + n + k]]
    return []


def expected_passes(prompt: list[int], target: list[int], min_n: int, max_n: int, k: int) -> list[int]:
    whole = [int(t) for t in prompt] + [int(t) for t in target]
    start, end = len(prompt), len(whole)
    passes, at = [], start
    while at < end:
        draft = expected_draft(whole[:at], min_n, max_n, k)
        accepted = 0
        for offset, token in enumerate(draft):
            if at + offset >= end or whole[at + offset] != token:
                break
            accepted += 1
        emitted = min(accepted + 1, end - at)
        passes.append(emitted)
        at += emitted
    return passes


def copying_case(rng: np.random.Generator, vocab: int, n_prompt: int, n_target: int) -> tuple[list[int], list[int]]:
    """A prompt of random tokens and a target that mostly copies spans of what came before it."""
    prompt = [int(t) for t in rng.integers(0, vocab, size=n_prompt)]
    seq = list(prompt)
    while len(seq) < n_prompt + n_target:
        if seq and rng.random() < 0.75:
            s = int(rng.integers(0, len(seq)))
            seq.extend(seq[s : s + int(rng.integers(1, 8))])
        else:
            seq.append(int(rng.integers(0, vocab)))
    return prompt, seq[n_prompt : n_prompt + n_target]


# --------------------------------------------------------------------------- comparing answers


def counted(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def expect_ints(got: Any, want: list[int], what: str, unit: str) -> None:
    """A list of ints (Python or numpy) equal to ``want``, compared exactly."""
    ints = isinstance(got, list) and all(isinstance(t, (int, np.integer)) and not isinstance(t, bool) for t in got)
    if not ints:
        fail(f"{what} should be a list of ints, got {describe(got)}", hint="form")
    values = [int(t) for t in got]
    if values == want:
        return
    if values_shown():
        message = f"{what}: expected {want}, got {values}"
    elif len(values) != len(want):
        one = unit.removesuffix("es") if unit == "passes" else unit.removesuffix("s")
        were = "was" if len(want) == 1 else "were"
        message = f"{what} has {counted(len(values), one, unit)} where {len(want)} {were} expected"
    else:
        wrong = [i for i, (g, w) in enumerate(zip(values, want, strict=True)) if g != w]
        where = f"first at position {wrong[0]}; {len(wrong)} of {len(want)} differ"
        message = f"{what} differs from the expected {unit}: {where}"
    # A value that differs: the grader names the mistake from the answers, no hint is guessed here.
    fail(message, hint=None, expected=want, got=got)


def compare_drafts(student: Student, cases: list[tuple[list[int], int, int, int]], label: str) -> None:
    """ngram_propose on every case, in one crossing."""
    for n, (args, got) in enumerate(zip(cases, student.ngram_propose.each(cases), strict=True), start=1):
        expect_ints(got, expected_draft(*args), f"the draft ({label}, case {n} of {len(cases)})", "tokens")


def compare_passes(student: Student, cases: list[tuple[list[int], list[int], int, int, int]], label: str) -> None:
    """lookup_decode on every case, in one crossing."""
    for n, (args, got) in enumerate(zip(cases, student.lookup_decode.each(cases), strict=True), start=1):
        expect_ints(got, expected_passes(*args), f"the passes ({label}, case {n} of {len(cases)})", "passes")


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    drafts = [
        (([1, 2, 3, 4, 1, 2, 3, 5, 1, 2, 3], 1, 3, 2), [4, 1], "the 3-gram occurs twice"),
        (([5, 6, 7, 6, 8, 7], 1, 3, 2), [6, 8], "only the 1-gram occurs"),
        (([5, 6, 7, 6, 8, 7], 2, 3, 2), [], "with min_n = 2"),
    ]
    for (_, want, what), got in zip(drafts, student.ngram_propose.each([a for a, *_ in drafts]), strict=True):
        expect_ints(got, want, f"the draft ({what})", "tokens")
    got = student.lookup_decode([1, 2, 3, 1], [2, 3, 9, 1, 2, 3], 1, 2, 3)
    expect_ints(got, [3, 1, 2], "the passes of the decoding example", "passes")


@check("Both functions return lists of ints, empty ones included", public=True, hint="form")
def return_form(student: Student) -> None:
    got = student.ngram_propose([4, 4, 4], 1, 2, 3)
    expect_ints(got, [4], "the draft of [4, 4, 4] (n = 2, k = 3)", "tokens")
    got = student.ngram_propose([1, 2, 3], 1, 2, 3)
    expect_ints(got, [], "the draft when nothing occurs earlier", "tokens")
    got = student.lookup_decode([1, 2], [], 1, 2, 3)
    expect_ints(got, [], "the passes for an empty target", "passes")
    got = student.lookup_decode([1, 2, 1], [2, 1, 2], 1, 2, 1)
    expect_ints(got, [2, 1], "the passes with one-token drafts", "passes")


@check("The longest n that occurs wins, even when a shorter one occurs earlier", hint="longest-first")
def longest_first(student: Student, rng: np.random.Generator) -> None:
    cases = [
        ([2, 9, 3, 1, 2, 8, 4, 1, 2], 1, 3, 3),  # the 1-gram occurs at 0 and 4, the 2-gram [1, 2] only at 3
        ([5, 1, 6, 7, 0, 6, 7, 2, 5, 6, 7], 1, 4, 2),
        ([3, 4, 3, 5, 4, 6, 3, 4, 5], 2, 3, 4),
        ([7, 1, 2, 3, 9, 7, 2, 3, 8, 1, 2, 3], 1, 3, 1),
    ]
    for _ in range(12):
        # A long pattern planted late, and its shorter suffixes scattered earlier.
        n = int(rng.integers(3, 6))
        pattern = [int(t) for t in rng.integers(10, 20, size=n)]
        noise = [int(t) for t in rng.integers(0, 10, size=int(rng.integers(2, 6)))]
        early = [pattern[-1], *noise, *pattern[-2:], int(rng.integers(0, 10))]
        tokens = early + [int(t) for t in rng.integers(0, 10, size=3)] + pattern + [int(rng.integers(20, 30))] + pattern
        cases.append((tokens, 1, n, int(rng.integers(1, 5))))
    compare_drafts(student, cases, "longer and shorter n-grams both occur")


@check("The earliest occurrence wins", hint="earliest")
def earliest_occurrence(student: Student, rng: np.random.Generator) -> None:
    cases = [
        ([1, 2, 3, 4, 1, 2, 3, 5, 1, 2, 3], 3, 3, 3),
        ([8, 1, 8, 2, 8, 3, 8], 1, 1, 1),
        ([4, 5, 0, 4, 5, 1, 4, 5, 2, 4, 5], 2, 2, 2),
    ]
    for _ in range(12):
        n = int(rng.integers(1, 4))
        pattern = [int(t) for t in rng.integers(20, 30, size=n)]
        tokens: list[int] = []
        for _ in range(int(rng.integers(2, 5))):
            tokens += [int(t) for t in rng.integers(0, 20, size=int(rng.integers(1, 4)))] + pattern
        cases.append((tokens, n, n, int(rng.integers(1, 4))))
    compare_drafts(student, cases, "the pattern occurs several times")


@check("The pattern itself never counts, but an occurrence may overlap it", hint="not-itself")
def pattern_not_itself(student: Student) -> None:
    cases = [
        ([1, 2, 3, 4, 5, 3], 1, 3, 2),  # no 3- or 2-gram occurs earlier: the 1-gram [3] at 2
        ([6, 7, 8, 9, 7, 8, 9], 1, 4, 3),  # no 4-gram: the 3-gram at 1
        ([7, 7, 7, 7], 1, 3, 2),  # the 3-gram at 0 overlaps the pattern
        ([5, 5], 1, 3, 4),  # n = 3 and 2 are too long; the 1-gram at 0
        ([1, 2, 1, 2, 1], 1, 4, 3),  # the 3-gram [1, 2, 1] at 0 overlaps the pattern at 2
        ([1, 2, 3, 4, 5], 1, 2, 2),  # nothing occurs earlier
        ([3, 1, 4, 1, 5, 9, 2, 6], 1, 3, 2),
        ([9], 1, 3, 2),  # one token: every n ≥ L
        ([], 1, 2, 2),  # an empty context
        ([4, 4], 2, 5, 3),  # every n ≥ L
    ]
    compare_drafts(student, cases, "edges of the search")


@check("A draft stops at the end of the context", hint="draft-length")
def draft_cut_at_end(student: Student, rng: np.random.Generator) -> None:
    cases = [
        ([1, 2, 3, 1, 2], 1, 2, 5),  # [1, 2] at 0: only [3, 1, 2] follows
        ([5, 6, 5], 1, 1, 4),  # [5] at 0: [6, 5] follows
        ([2, 2, 2], 1, 2, 6),  # [2, 2] at 0: [2]
    ]
    for _ in range(10):
        body = [int(t) for t in rng.integers(0, 30, size=int(rng.integers(3, 8)))]
        cut = int(rng.integers(1, len(body)))
        tokens = body + body[:cut]
        cases.append((tokens, 1, int(rng.integers(1, 4)), int(rng.integers(len(body), len(body) + 4))))
    compare_drafts(student, cases, "fewer than k tokens follow")


@check("Drafts for many random contexts")
def random_drafts(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for _ in range(300):
        L = int(rng.integers(0, 40))
        vocab = int(rng.integers(2, 7))
        min_n = int(rng.integers(1, 4))
        max_n = min_n + int(rng.integers(0, 4))
        cases.append(([int(t) for t in rng.integers(0, vocab, size=L)], min_n, max_n, int(rng.integers(1, 7))))
    compare_drafts(student, cases, "random context")


@check("Decoding emits the accepted drafts and the target's token", hint="bonus")
def decode_bonus(student: Student) -> None:
    cases = [
        ([1, 2, 3, 4, 1], [2, 3, 4, 1, 2], 1, 2, 3),  # every draft is accepted
        ([5, 6, 7, 5, 6], [7, 5, 6, 8], 2, 2, 2),
        ([1, 2, 3, 1], [2, 3, 9, 1, 2, 3], 1, 2, 3),
        ([4, 5, 6, 4], [5, 6, 4, 5, 6, 4, 5, 6, 4], 1, 3, 4),
    ]
    compare_passes(student, cases, "drafts accepted")


@check("Accepting stops at the first mismatch", hint="stop-at-mismatch")
def decode_first_mismatch(student: Student) -> None:
    cases = [
        ([1, 2, 3, 4, 1], [2, 9, 4, 1, 2], 1, 1, 4),  # the draft [2, 3, 4, 1]: 3 ≠ 9, then 4 and 1 agree
        ([6, 1, 2, 3, 4, 6], [1, 2, 0, 4, 6, 1, 2], 1, 2, 5),
        ([3, 5, 7, 9, 3], [8, 7, 9, 3, 5], 1, 1, 4),
    ]
    compare_passes(student, cases, "drafts agree again after a mismatch")


@check("The context grows with every emitted token", hint="context-grows")
def decode_context_grows(student: Student) -> None:
    cases = [
        ([1, 2], [3, 4, 1, 2, 3, 4, 1, 2], 1, 2, 3),  # the prompt alone never drafts anything
        ([9], [5, 6, 7, 5, 6, 7, 5, 6, 7], 1, 3, 2),
        ([], [1, 1, 1, 1, 1, 1], 1, 1, 2),  # an empty prompt
        ([2, 3, 2], [3, 5, 2, 3, 5, 2, 3, 5], 1, 2, 4),
    ]
    compare_passes(student, cases, "drafts from generated tokens")


@check("A pass never emits past the end of the target", hint="target-end")
def decode_target_end(student: Student) -> None:
    cases = [
        ([1, 2, 3, 4, 1], [2], 1, 1, 3),  # the draft [2, 3, 4] is accepted as far as the target goes
        ([1, 2, 3, 4, 1], [2, 3], 1, 2, 3),
        ([7, 8, 9, 7, 8, 9, 7], [8, 9, 7, 8], 1, 3, 3),
        ([5], [6], 1, 2, 2),  # one pass without a draft
        ([4, 4, 4], [4, 4, 4, 4, 4], 1, 2, 3),
    ]
    compare_passes(student, cases, "the target ends inside a draft")


@check("Decoding random copy-heavy targets")
def decode_random(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for _ in range(60):
        vocab = int(rng.integers(3, 12))
        prompt, target = copying_case(rng, vocab, int(rng.integers(0, 25)), int(rng.integers(0, 30)))
        min_n = int(rng.integers(1, 3))
        cases.append((prompt, target, min_n, min_n + int(rng.integers(0, 3)), int(rng.integers(1, 6))))
    compare_passes(student, cases, "random target")


@check("Token ids given as numpy integers")
def numpy_integers(student: Student, rng: np.random.Generator) -> None:
    prompt, target = copying_case(rng, 6, 15, 20)
    ids = np.arange(0, 10, dtype=np.int64)
    as_numpy = [ids[t] for t in prompt]  # numpy scalars, one per token
    want = expected_draft(prompt, 1, 3, 4)
    expect_ints(student.ngram_propose(as_numpy, 1, 3, 4), want, "the draft of a context of numpy integers", "tokens")
    got = student.lookup_decode(as_numpy, [ids[t] for t in target], 1, 3, 4)
    expect_ints(got, expected_passes(prompt, target, 1, 3, 4), "the passes for numpy integer tokens", "passes")


@check("The lists passed in are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    prompt, target = [1, 2, 3, 1], [2, 3, 9, 1, 2, 3]
    tokens = [1, 2, 3, 4, 1, 2, 3]
    # The same lists for two calls in one crossing: a call that changes them changes the second answer.
    first, second = student.ngram_propose.each([(tokens, 1, 3, 2), (tokens, 1, 3, 2)])
    expect_ints(first, [4, 1], "the draft, first call", "tokens")
    expect_ints(second, [4, 1], "the draft, second call on the same list", "tokens")
    first, second = student.lookup_decode.each([(prompt, target, 1, 2, 3), (prompt, target, 1, 2, 3)])
    expect_ints(first, [3, 1, 2], "the passes, first call", "passes")
    if isinstance(second, list) and [int(e) for e in second] != [3, 1, 2]:
        fail("lookup_decode gave another answer to a second call with the same prompt and target: the first call "
             "changed the lists it was given (the context must be a new list)")  # fmt: skip
    expect_ints(second, [3, 1, 2], "the passes, second call on the same lists", "passes")
