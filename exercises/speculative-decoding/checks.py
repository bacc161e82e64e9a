"""Hidden checks for "Speculative Decoding: Accept, Reject, Resample".

Expected tokens are computed here by another route than a solution's: acceptance as
u · p_draft < p_target (no division), and sampling from unnormalised weights with a running sum
compared to u · total, in plain Python floats. Random cases are kept away from ties that floating
point cannot decide (within 1e-9); the tie checks use dyadic numbers, which are exact. A last
check tests the distribution itself: over thousands of seeded uniforms, the emitted tokens must
follow the target model's distribution (a chi-square test).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, fail, values_shown

Case = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, float]
MARGIN = 1e-9
#: Chi-square critical value for 4 degrees of freedom at the 0.1 % level (a table value).
CHI2_4_CRITICAL = 18.467


# --------------------------------------------------------------------------- independent reference


def inverse_cdf(weights: list[float], u: float) -> int:
    """The smallest j whose running sum of the weights exceeds u · total: sampling from weights / total."""
    total = math.fsum(weights)
    running = 0.0
    for j, weight in enumerate(weights):
        running += weight
        if running > u * total:
            return j
    return len(weights)  # not reached: the cases keep u below the total


def expected_tokens(case: Case) -> list[int]:
    draft, p_draft, p_target, u_accept, u_sample = case
    tokens: list[int] = []
    for i, token in enumerate(draft.tolist()):
        # u < min(1, p_t / p_d) for u in [0, 1), without dividing: u · p_d < p_t.
        if u_accept[i] * p_draft[i, token] < p_target[i, token]:
            tokens.append(token)
            continue
        residual = [max(t - d, 0.0) for t, d in zip(p_target[i].tolist(), p_draft[i].tolist(), strict=True)]
        return [*tokens, inverse_cdf(residual, u_sample)]
    return [*tokens, inverse_cdf(p_target[len(draft)].tolist(), u_sample)]


def clear_of_ties(weights: np.ndarray, u: float) -> bool:
    cdf = np.cumsum(weights) / weights.sum()
    return bool(np.all(np.abs(cdf - u) > MARGIN))


def decidable(case: Case) -> bool:
    """Whether every comparison on the case's path is farther than MARGIN from a tie."""
    draft, p_draft, p_target, u_accept, u_sample = case
    for i, token in enumerate(draft.tolist()):
        ratio = min(1.0, p_target[i, token] / p_draft[i, token])
        if abs(u_accept[i] - ratio) <= MARGIN:
            return False
        if u_accept[i] >= ratio:
            return clear_of_ties(np.maximum(p_target[i] - p_draft[i], 0.0), u_sample)
    return clear_of_ties(p_target[len(draft)], u_sample)


def distributions(rng: np.random.Generator, rows: int, V: int, zeros: bool) -> np.ndarray:
    p = rng.dirichlet(np.full(V, 0.8), size=rows)
    if zeros and V > 2:
        p[rng.random(p.shape) < 0.25] = 0.0
        p[np.arange(rows), rng.integers(0, V, size=rows)] += 0.1  # no row left all zero
        p /= p.sum(axis=1, keepdims=True)
    return p


def make_case(rng: np.random.Generator, k: int, V: int, stop: int, zeros: bool = False) -> Case:
    """k drafted tokens over V: the first rejection at position ``stop``, or none if stop == k."""
    while True:
        p_draft = distributions(rng, k, V, zeros)
        p_target = distributions(rng, k + 1, V, zeros)
        draft = np.array([rng.choice(V, p=row) for row in p_draft], dtype=np.int64)
        ratios = np.minimum(1.0, p_target[np.arange(k), draft] / p_draft[np.arange(k), draft])
        if stop < k and ratios[stop] >= 1.0:
            continue  # this draft token cannot be rejected: draw again
        u_accept = rng.random(k)
        u_accept[:stop] = rng.random(stop) * ratios[:stop]
        if stop < k:
            u_accept[stop] = ratios[stop] + rng.random() * (1.0 - ratios[stop])
        case = (draft, p_draft, p_target, u_accept, float(rng.random()))
        if decidable(case):
            return case


def label(case: Case) -> str:
    draft, p_draft, *_ = case
    return f"k={len(draft)}, V={p_draft.shape[1]}"


# --------------------------------------------------------------------------- comparing


def token_list(got: Any, k: int, V: int, *, what: str) -> list[int]:
    """The form: a list of 1 to k + 1 integer token ids in range."""
    if not isinstance(got, list):
        fail(f"{what} should be a list of token ids (ints), got {describe(got)}", hint="form")
    for n, item in enumerate(got):
        if isinstance(item, bool) or not isinstance(item, (int, np.integer)):
            fail(f"{what} should hold integer token ids, got {describe(item)} at position {n}", hint="form")
    if not got:
        fail(f"{what}: an empty list, but at least one token is always emitted (the resampled one, or the bonus one)",
             hint="correction")  # fmt: skip
    if len(got) > k + 1:
        fail(f"{what} holds {len(got)} tokens, more than k + 1 = {k + 1}", hint="form")
    tokens = [int(t) for t in got]
    outside = [n for n, t in enumerate(tokens) if not 0 <= t < V]
    if outside:
        shown = (
            f"{tokens} includes token {tokens[outside[0]]},"
            if values_shown()
            else f"the token at position {outside[0]} is"
        )
        fail(f"{what}: {shown} outside the vocabulary 0 … {V - 1}", hint=None)
    return tokens


def story(tokens: list[int], k: int) -> str:
    accepted = len(tokens) - 1
    if accepted == k:
        return f"all {k} drafted tokens accepted, then the bonus token"
    return f"{accepted} of {k} drafted tokens accepted, then the token resampled at the rejection"


def expect_tokens(got: Any, case: Case, *, what: str) -> None:
    draft, p_draft, *_ = case
    k, V = len(draft), p_draft.shape[1]
    tokens = token_list(got, k, V, what=what)
    want = expected_tokens(case)
    if tokens == want:
        return
    if values_shown():
        message = f"{what}: expected {want} ({story(want, k)}), got {tokens}"
    elif len(tokens) != len(want):
        message = f"{what}: {len(tokens)} tokens where {len(want)} were expected ({story(want, k)})"
    else:  # the token ids are the check's: a hidden check says where they differ, and what that token is
        first = next(n for n, (t, w) in enumerate(zip(tokens, want, strict=True)) if t != w)
        if first == len(want) - 1:
            which = "the last one, drawn after the accepted tokens"
        else:
            which = "an accepted one, which should repeat the drafted token"
        message = (
            f"{what}: the right number of tokens ({story(want, k)}), but the token at position {first} "
            f"({which}) differs"
        )
    fail(message, hint=None, expected=want, got=tokens)


def check_cases(student: Student, cases: list[tuple[Case, str]]) -> None:
    results = student.speculative_accept.each([case for case, _ in cases])
    for (case, what), got in zip(cases, results, strict=True):
        expect_tokens(got, case, what=f"the tokens ({what}, {label(case)})")


def dyadic_case(
    p_draft: list[list[float]], p_target: list[list[float]], tokens: list[int], u: list[float], u_sample: float
) -> Case:
    return (np.array(tokens), np.array(p_draft), np.array(p_target), np.array(u), u_sample)


# --------------------------------------------------------------------------- the checks

EXAMPLE_P_DRAFT = np.array([[0.5, 0.3, 0.1, 0.1], [0.2, 0.6, 0.1, 0.1]])
EXAMPLE_P_TARGET = np.array([[0.4, 0.4, 0.1, 0.1], [0.1, 0.3, 0.3, 0.3], [0.5, 0.2, 0.2, 0.1]])


@check("The worked examples from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    draft = np.array([0, 1])
    for u_accept, want in (([0.3, 0.7], [0, 3]), ([0.3, 0.2], [0, 1, 1])):
        case = (draft, EXAMPLE_P_DRAFT, EXAMPLE_P_TARGET, np.array(u_accept), 0.6)
        got = student.speculative_accept(*case)
        tokens = token_list(got, 2, 4, what=f"the tokens for u_accept = {u_accept}")
        if tokens != want:
            fail(f"the tokens for u_accept = {u_accept}: expected {want} ({story(want, 2)}), got {tokens}",
                 hint=None, expected=want, got=tokens)  # fmt: skip


@check("Returns a list of integer token ids", hint="form")
def output_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    case = make_case(rng, 3, 6, 1)
    token_list(student.speculative_accept(*case), 3, 6, what="speculative_accept's return value")


@check("Random drafts, rejected at every position or accepted throughout")
def random_drafts(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = []
    for k, V in ((1, 2), (3, 5), (4, 12), (8, 50)):
        for stop in sorted({0, k // 2, k - 1, k}):
            cases.append((make_case(rng, k, V, stop), f"rejection at position {stop}" if stop < k else "no rejection"))
    check_cases(student, cases)


@check("All drafts accepted: one bonus token from the last target row", hint="bonus")
def bonus_token(student: Student) -> None:
    rng = np.random.default_rng(3)
    check_cases(student, [(make_case(rng, k, V, k), "all accepted") for k, V in ((1, 4), (2, 7), (5, 3), (6, 20))])


@check("A rejection resamples from the residual max(0, p_target − p_draft), then stops", hint="residual")
def rejection_residual(student: Student) -> None:
    rng = np.random.default_rng(4)
    cases = []
    for k, V, stop in ((1, 6, 0), (3, 4, 0), (3, 9, 1), (5, 5, 2), (6, 30, 3), (4, 8, 3)):
        cases.append((make_case(rng, k, V, stop), f"rejection at position {stop}"))
    check_cases(student, cases)


@check("Tokens of probability zero in either model")
def zero_probabilities(student: Student) -> None:
    rng = np.random.default_rng(5)
    cases = []
    for k, V, stop in ((2, 6, 0), (3, 8, 1), (4, 10, 4), (5, 7, 2), (3, 12, 3), (6, 9, 5)):
        cases.append((make_case(rng, k, V, stop, zeros=True), "some probabilities 0"))
    check_cases(student, cases)


@check("No drafted tokens (k = 0): a single token from p_target[0]", hint="bonus")
def empty_draft(student: Student) -> None:
    rng = np.random.default_rng(6)
    cases = []
    for V in (2, 5, 40):
        p_target = rng.dirichlet(np.ones(V), size=1)
        u_sample = float(rng.random())
        while not clear_of_ties(p_target[0], u_sample):
            u_sample = float(rng.random())
        case = (np.zeros(0, dtype=np.int64), np.zeros((0, V)), p_target, np.zeros(0), u_sample)
        cases.append((case, "empty draft"))
    check_cases(student, cases)


@check("u_accept equal to the acceptance ratio is a rejection", hint="strict-accept")
def acceptance_ties(student: Student) -> None:
    quarter = [0.25, 0.25, 0.25, 0.25]
    liked = [0.5, 0.25, 0.125, 0.125]  # token 0 at 0.5, token 1 at 0.25
    cases = [
        # ratio 0.25 / 0.5 = 0.5 and u = 0.5: rejected, resampled from the residual (0, 0, 0.5, 0.5).
        # (Had it been accepted, the second draft, of ratio 0.5 / 0.25 = 2, would be accepted too.)
        (dyadic_case([liked, quarter], [quarter, liked, quarter], [0, 0], [0.5, 0.75], 0.25), "u = ratio"),
        # p_target of the token is 0, so the ratio is 0, and u = 0 does not accept it.
        (dyadic_case([quarter], [[0.0, 0.5, 0.25, 0.25], quarter], [0], [0.0], 0.75), "u = ratio = 0"),
    ]
    check_cases(student, cases)


@check("Sampling takes the first token whose running sum is strictly greater than u", hint="sample-rule")
def sampling_ties(student: Student) -> None:
    quarter = [0.25, 0.25, 0.25, 0.25]
    liked = [0.5, 0.25, 0.125, 0.125]
    cases = [
        # Accepted (ratio 2), then the bonus from (0.25, 0.25, 0.5, 0) with u = 0.5, a running sum.
        (dyadic_case([quarter], [liked, [0.25, 0.25, 0.5, 0.0]], [0], [0.75], 0.5), "bonus, u on a running sum"),
        # The bonus from (0, 0.5, 0.5, 0) with u = 0: token 0 has probability 0.
        (dyadic_case([quarter], [liked, [0.0, 0.5, 0.5, 0.0]], [0], [0.75], 0.0), "bonus, u = 0"),
        # Rejected (ratio 0.5, u = 0.75), the residual (0, 0, 0.5, 0.5) with u = 0.5.
        (dyadic_case([liked], [quarter, quarter], [0], [0.75], 0.5), "resampled, u on a running sum"),
    ]
    check_cases(student, cases)


@check("The arrays passed in are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    p_draft = np.array([[0.6, 0.2, 0.1, 0.1]])
    p_target = np.array([[0.1, 0.3, 0.3, 0.3], [0.25, 0.25, 0.25, 0.25]])
    rejected = (np.array([0]), p_draft, p_target, np.array([0.5]), 0.55)
    accepted = (np.array([1]), p_draft, p_target, np.array([0.9]), 0.55)
    # One p_draft and one p_target for three calls in one crossing: a call that changes them
    # changes what the later calls see. The first and third calls have the same arguments.
    results = student.speculative_accept.each([rejected, accepted, rejected])
    first, _, third = results
    if isinstance(first, list) and isinstance(third, list) and first != third:
        fail("two calls with the same arguments gave different tokens: the first call changed the p_target or "
             "p_draft it was given")  # fmt: skip
    for n, (case, got) in enumerate(zip((rejected, accepted, rejected), results, strict=True), start=1):
        expect_tokens(got, case, what=f"the tokens (call {n} of 3 on the same arrays)")


@check("Over many draws, the emitted tokens follow p_target (chi-square test)")
def target_distribution(student: Student) -> None:
    rng = np.random.default_rng(7)
    N, V = 2000, 5
    p_draft = np.array([[0.40, 0.30, 0.15, 0.10, 0.05], [0.10, 0.20, 0.30, 0.20, 0.20]])
    p_target = np.array([[0.10, 0.25, 0.30, 0.20, 0.15], [0.30, 0.10, 0.10, 0.25, 0.25], [0.2] * 5])
    # The drafts are sampled from p_draft, as a draft model would; the uniforms are fresh each time.
    drafts = np.stack([rng.choice(V, size=N, p=row) for row in p_draft], axis=1)
    U, u_sample = rng.random((N, 2)), rng.random(N)
    results = student.speculative_accept.each(
        [(drafts[n], p_draft, p_target, U[n], float(u_sample[n])) for n in range(N)]
    )
    first = np.zeros(V)
    second = np.zeros(V)  # the second token, in the draws whose first drafted token was accepted
    for n, got in enumerate(results):
        tokens = token_list(got, 2, V, what=f"the tokens (draw {n + 1} of {N})")
        first[tokens[0]] += 1
        if len(tokens) > 1:
            second[tokens[1]] += 1
    for counts, row, what in ((first, 0, "first tokens"), (second, 1, "second tokens after an accepted first")):
        expected = counts.sum() * p_target[row]
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        if chi2 > CHI2_4_CRITICAL and values_shown():
            fail(f"the {what} do not follow p_target[{row}]: over {int(counts.sum())} draws they came "
                 f"{counts.astype(int).tolist()} times where about {np.round(expected).astype(int).tolist()} were "
                 f"expected (chi-square {chi2:.1f} with 4 degrees of freedom, above {CHI2_4_CRITICAL}, the 0.1 % "
                 "critical value)")  # fmt: skip
        if chi2 > CHI2_4_CRITICAL:  # the counts would show p_target's hidden probabilities
            fail(f"the {what} do not follow p_target[{row}]: over {int(counts.sum())} draws, how often each token "
                 "came is too far from its probability (a chi-square test with 4 degrees of freedom fails, at a "
                 "significance level of one in a thousand)")  # fmt: skip
