"""Hidden checks for "Online Softmax and Tiled Attention".

Expected states come from the whole history of scores at once (m is the maximum of every score
seen, l and acc are sums over all of them), never from an update applied block after block; the
expected attention output is one softmax over all the scores, in log space. A wrong answer is
named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_dict, expect_float, fail

State = dict[str, Any]


# --------------------------------------------------------------------------- independent reference


def state_of(scores: np.ndarray, values: np.ndarray) -> State:
    """The state after every one of these scores and values, from the definitions."""
    if len(scores) == 0:
        return {"m": -np.inf, "l": 0.0, "acc": np.zeros(values.shape[1])}
    m = float(np.max(scores))
    w = np.exp(scores - m)
    return {"m": m, "l": float(np.sum(w)), "acc": w @ values}


def attention(q: np.ndarray, K: np.ndarray, V: np.ndarray) -> np.ndarray:
    s = K @ q / np.sqrt(len(q))
    return np.exp(s - np.logaddexp.reduce(s)) @ V


def empty_state(d: int) -> State:
    return {"m": -np.inf, "l": 0.0, "acc": np.zeros(d)}


def is_float(value: Any) -> bool:
    return isinstance(value, (float, np.floating))


def expect_state(got: Any, want: State, what: str) -> None:
    """The form first (a dict of two floats and a float64 vector), then each value."""
    state = expect_dict(got, ["m", "l", "acc"], what=what, hint="state-form")
    for key in ("m", "l"):
        if not is_float(state[key]):
            fail(f'{what}: "{key}" should be a float, got {describe(state[key])}', hint="state-form")
    acc = state["acc"]
    d = len(want["acc"])
    if not isinstance(acc, np.ndarray) or acc.shape != (d,) or acc.dtype != np.float64:
        fail(f'{what}: "acc" should be a float64 array of shape ({d},), as long as a row of values, got '
             f"{describe(acc)}", hint="state-form")  # fmt: skip
    for key in ("m", "l"):
        expect_float(state[key], want[key], what=f'{what}: "{key}"', rtol=1e-9, atol=1e-12, hint="state-form")
    expect_array(acc, want["acc"], what=f'{what}: "acc"', rtol=1e-9, atol=1e-12, hint="state-form")


def expect_output(got: Any, want: np.ndarray, what: str, **tol: float) -> None:
    if isinstance(got, np.ndarray) and got.shape == want.shape and got.dtype != np.float64:
        fail(f"{what} should be a float64 array, got dtype {got.dtype}", hint="output-form")
    expect_array(got, want, what=what, hint="output-form", **tol)


def updates(student: Student, cases: list[tuple[np.ndarray, np.ndarray, int, str]]) -> None:
    """Each case: scores and values, the first ``seen`` of them folded into the state given, the rest
    the new block; the answer must be the state of them all. Every case in one crossing."""
    calls = [(state_of(s[:seen], v[:seen]), s[seen:], v[seen:]) for s, v, seen, _ in cases]
    for (s, v, seen, label), got in zip(cases, student.online_softmax_update.each(calls), strict=True):
        expect_state(got, state_of(s, v), f"the state after {label} ({seen} scores seen, a block of {len(s) - seen})")


def tiled(student: Student, cases: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]], **tol: float) -> None:
    results = student.tiled_attention.each(cases)
    for (q, K, V, b), got in zip(cases, results, strict=True):
        T, d = K.shape
        expect_output(got, attention(q, K, V), f"tiled_attention for T={T}, d={d}, d_v={V.shape[1]}, block_size={b}",
                      **tol)  # fmt: skip


def random_case(rng: np.random.Generator, T: int, d: int, d_v: int, b: int, spread: float = 1.0) -> tuple:
    return rng.normal(size=d) * spread, rng.normal(size=(T, d)), rng.normal(size=(T, d_v)), b


# --------------------------------------------------------------------------- the checks

EXAMPLE_SCORES = np.array([1.0, 2.0, 3.0])
EXAMPLE_VALUES = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    s, v = EXAMPLE_SCORES, EXAMPLE_VALUES
    first, second = student.online_softmax_update.each(
        [(empty_state(2), s[:2], v[:2]), (state_of(s[:2], v[:2]), s[2:], v[2:])]
    )
    expect_state(first, state_of(s[:2], v[:2]), "the state after the first block, scores (1, 2)")
    expect_state(second, state_of(s, v), "the state after the second block, score (3)")
    q = np.array([2.0, 0.0, 0.0, 0.0])
    K = np.array([[1.0, 0.0, 0.0, 0.0], [2.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.0, 0.0]])
    expect_output(student.tiled_attention(q, K, v, 2), attention(q, K, v), "tiled_attention(q, K, V, 2)")


@check("online_softmax_update returns a dict of two floats and a float64 vector", hint="state-form")
def state_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    got = student.online_softmax_update(empty_state(3), rng.normal(size=4), rng.normal(size=(4, 3)))
    state = expect_dict(got, ["m", "l", "acc"], what="the new state")
    for key in ("m", "l"):
        if not is_float(state[key]):
            fail(f'"{key}" should be a float (a Python float or a numpy float64), got {describe(state[key])}')
    if not isinstance(state["acc"], np.ndarray) or state["acc"].shape != (3,) or state["acc"].dtype != np.float64:
        fail(f'"acc" should be a float64 array of shape (3,) for values of shape (4, 3), got {describe(state["acc"])}')


@check("The first block, from the empty state", hint="state-form")
def update_from_empty(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = [(rng.normal(size=b), rng.normal(size=(b, d)), 0, f"{b} scores, d={d}")
             for b, d in ((1, 3), (2, 1), (5, 4), (16, 8), (7, 2))]  # fmt: skip
    updates(student, cases)


@check("Later blocks: a higher max, a lower one, the same one", hint="rescale")
def update_rescales(student: Student) -> None:
    rng = np.random.default_rng(3)
    cases = []
    for seen, b, d, shift, label in (
        (4, 3, 3, 2.0, "a block with a higher max"),
        (6, 2, 2, 5.0, "a block with a much higher max"),
        (5, 4, 3, -2.0, "a block with a lower max"),
        (3, 1, 4, -6.0, "a single score far below the max"),
        (8, 8, 5, 1.0, "a block of 8 with a higher max"),
        (1, 5, 2, -1.0, "a block with a lower max"),
    ):
        s = rng.normal(size=seen + b)
        s[seen:] += shift + s[:seen].max() - s[seen:].max()  # the block's max is shift above (or below) the old one
        cases.append((s, rng.normal(size=(seen + b, d)), seen, label))
    s = rng.normal(size=6)
    s[3:] = s[:3].max() - np.abs(s[3:])
    s[4] = s[:3].max()  # the same max as before, in the new block
    cases.append((s, rng.normal(size=(6, 3)), 3, "a block whose max equals the old one"))
    updates(student, cases)


@check("The state passed in is left unchanged", hint="no-mutation")
def state_unchanged(student: Student) -> None:
    rng = np.random.default_rng(4)
    s, v = rng.normal(size=5), rng.normal(size=(5, 3))
    state = state_of(s[:3], v[:3])
    high = np.array([s.max() + 3.0, 0.0])
    # One state for three calls in one crossing: a call that changes the state it was given
    # changes what the next call sees.
    calls = [(state, high, v[3:]), (state, s[3:], v[3:]), (state, high, v[3:])]
    results = student.online_softmax_update.each(calls)
    first = results[0]
    wants = [state_of(np.concatenate([s[:3], block]), np.vstack([v[:3], v[3:]])) for _, block, _ in calls]
    # What the first answer holds if each call updates the state it was given and returns it.
    all_three = state_of(np.concatenate([s[:3], high, s[3:], high]), np.vstack([v[:3], v[3:], v[3:], v[3:]]))
    if isinstance(first, dict) and is_float(first.get("l")) and np.isclose(first["l"], all_three["l"]):
        fail("the first call's answer holds the blocks of all three calls: each call updated the state it was given "
             "and returned it, instead of a new one")  # fmt: skip
    for n, (got, want) in enumerate(zip(results, wants, strict=True), start=1):
        expect_state(got, want, f"the state of call {n} of 3 on one state")


@check("tiled_attention for many shapes; T is rarely a multiple of block_size", hint="output-form")
def tiled_shapes(student: Student) -> None:
    rng = np.random.default_rng(5)
    cases = [random_case(rng, T, d, d_v, b, spread=2.0)
             for T, d, d_v, b in ((10, 4, 3, 3), (7, 8, 8, 2), (12, 16, 4, 5), (9, 2, 6, 1), (6, 4, 2, 6),
                                  (5, 3, 5, 8), (1, 4, 3, 4), (33, 8, 8, 4), (100, 16, 8, 7))]  # fmt: skip
    tiled(student, cases)


@check("The last, shorter block counts too", hint="last-block")
def short_last_block(student: Student) -> None:
    rng = np.random.default_rng(6)
    cases = []
    for T, b in ((7, 3), (10, 4), (5, 2), (9, 8)):
        q, K, V, _ = random_case(rng, T, 4, 3, b)
        K[-1] = 6.0 * q / np.linalg.norm(q)  # the last key gets the highest score
        cases.append((q, K, V, b))
    tiled(student, cases)


@check("Large scores do not overflow, and very negative ones do not underflow", hint="empty-state")
def extreme_scores(student: Student) -> None:
    rng = np.random.default_rng(7)
    q, K, V, _ = random_case(rng, 12, 4, 3, 5)
    scores = K @ q / 2  # the scores of q and K, with d = 4

    def lowered(top: float) -> np.ndarray:
        return K - (scores.max() - top) * 2 * q / (q @ q)  # every score moved down, the highest to top

    cases = [
        (q * 300.0, K, V, 5),  # scores in the hundreds, spread over blocks
        (q, lowered(-800.0), V, 5),  # every score -800 or below: exp() of each is 0
        (q, lowered(-740.0), V, 5),  # exp() of each is at best a subnormal number, a few bits left
        (q * 300.0, K, V, 1),
    ]
    tiled(student, cases, rtol=1e-6, atol=1e-9)
