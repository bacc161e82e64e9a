"""Hidden checks for "Sliding-Window Attention with a Ring Buffer".

Expected outputs come from causal attention over the whole sequence with a band mask (token t
sees the tokens t - W + 1 … t), computed at once with a softmax in log space over a (T, T)
matrix. Expected caches come from a closed form of the ring buffer: after n tokens, slot s holds
the most recent token i < n with i ≡ s (mod W), or zeros if there is none. Nothing here writes
slots one step at a time as a solution does. A wrong answer is named by the grader, by comparing
it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_dict, expect_integer, expect_sequence, fail

Params = dict[str, np.ndarray]


# --------------------------------------------------------------------------- independent reference


def window_attention(X: np.ndarray, p: Params, window: int) -> np.ndarray:
    """Row t: token t's attention over the tokens max(0, t - W + 1) … t."""
    Q, K, V = X @ p["Wq"], X @ p["Wk"], X @ p["Wv"]
    T = len(X)
    i, j = np.arange(T)[:, None], np.arange(T)[None, :]
    seen = (j <= i) & (j > i - window)
    s = np.where(seen, Q @ K.T / np.sqrt(Q.shape[1]), -np.inf)
    return np.exp(s - np.logaddexp.reduce(s, axis=1, keepdims=True)) @ V


def ring(rows: np.ndarray, n: int, window: int) -> np.ndarray:
    """The ring buffer after the first n of these rows: slot s holds row s + W·⌊(n − 1 − s) / W⌋."""
    out = np.zeros((window, rows.shape[1]))
    for s in range(min(n, window)):
        out[s] = rows[s + window * ((n - 1 - s) // window)]
    return out


def ring_cache(X: np.ndarray, p: Params, n: int, window: int) -> dict[str, Any]:
    """The cache after the first n tokens of X."""
    return {"k": ring(X @ p["Wk"], n, window), "v": ring(X @ p["Wv"], n, window), "n": n}


def params(rng: np.random.Generator, D: int, d: int, spread: float = 1.0) -> Params:
    return {name: rng.normal(0, spread / np.sqrt(D), size=(D, d)) for name in ("Wq", "Wk", "Wv")}


def empty_cache(window: int, d: int) -> dict[str, Any]:
    return {"k": np.zeros((window, d)), "v": np.zeros((window, d)), "n": 0}


# --------------------------------------------------------------------------- talking to the solution


def step_form(result: Any, what: str) -> tuple[Any, dict[str, Any]]:
    """The form of what window_attend_step returned (not its values): (out, new_cache)."""
    out, new_cache = expect_sequence(result, 2, what=f"window_attend_step's return value ({what})", hint="shape")
    expect_dict(new_cache, ["k", "v", "n"], what=f"new_cache ({what})", hint="shape")
    return out, new_cache


def expect_cache(new_cache: dict[str, Any], want: dict[str, Any], what: str) -> None:
    """new_cache must be the ring buffer ``want``, slot by slot, and count its tokens."""
    expect_integer(new_cache["n"], want["n"], what=f'new_cache["n"] ({what})', hint="count")
    for key in ("k", "v"):
        expect_array(new_cache[key], want[key], what=f'new_cache["{key}"] ({what})', rtol=1e-9, atol=1e-12,
                     hint="shape")  # fmt: skip


def decode(student: Student, X: np.ndarray, p: Params, window: int, label: str) -> None:
    """Feed X token by token from an empty cache, in one chain; outputs and caches must match."""
    expected = window_attention(X, p, window)
    calls = [(x, empty_cache(window, p["Wq"].shape[1]) if t == 0 else None, p, window) for t, x in enumerate(X)]
    for t, result in enumerate(student.window_attend_step.chain(calls, feed=(1, 1))):
        what = f"{label}, token {t + 1} of {len(X)}"
        out, new_cache = step_form(result, what)
        expect_array(out, expected[t], what=f"out ({what})", hint="shape")
        expect_cache(new_cache, ring_cache(X, p, t + 1, window), what)


def steps_from_built_caches(
    student: Student, cases: list[tuple[np.ndarray, Params, int, str, list[int] | None]]
) -> None:
    """Steps of each sequence, each from the ring buffer of the tokens before it, all in one crossing."""
    plans = []
    for X, p, window, label, steps in cases:
        picked = list(range(len(X))) if steps is None else steps
        plans.append((X, p, window, label, picked, window_attention(X, p, window)))
    calls = [(X[t], ring_cache(X, p, t, window), p, window) for X, p, window, _, steps, _ in plans for t in steps]
    results = iter(student.window_attend_step.each(calls))
    for X, p, window, label, steps, expected in plans:
        for t in steps:
            what = f"{label}, token {t + 1} of {len(X)}"
            out, new_cache = step_form(next(results), what)
            expect_array(out, expected[t], what=f"out ({what})", hint="shape")
            expect_cache(new_cache, ring_cache(X, p, t + 1, window), what)


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    p = {"Wq": np.eye(2), "Wk": np.eye(2), "Wv": np.diag([1.0, 2.0])}
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    decode(student, X, p, 2, "worked example, W=2")


@check("window_attend_step returns (out, new_cache) with out of shape (d,)", hint="shape")
def output_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    D, d, window = 6, 4, 3
    p = params(rng, D, d)
    out, new_cache = step_form(student.window_attend_step(rng.normal(size=D), empty_cache(window, d), p, window),
                               "first token")  # fmt: skip
    if not isinstance(out, np.ndarray) or out.shape != (d,) or out.dtype != np.float64:
        fail(f"out should be a float64 array of d = {d} numbers, shape ({d},), got {describe(out)}", hint="shape")
    for key in ("k", "v"):
        value = new_cache[key]
        if not isinstance(value, np.ndarray) or value.shape != (window, d):
            fail(f'new_cache["{key}"] should keep its shape ({window}, {d}), one row per slot, got {describe(value)}',
                 hint="shape")  # fmt: skip
    expect_integer(new_cache["n"], 1, what='new_cache["n"] after the first token', hint="count")


@check("Decoding from an empty cache: windows shorter and longer than the sequence, and W = 1", hint="shape")
def decode_from_empty(student: Student) -> None:
    rng = np.random.default_rng(2)
    for D, d, window, T in ((5, 3, 4, 11), (6, 4, 8, 5), (4, 2, 1, 4)):
        p = params(rng, D, d, spread=2.0)
        decode(student, rng.normal(size=(T, D)), p, window, f"D={D}, d={d}, W={window}")


@check("Steps from ring buffers built by the checker, before and after the window fills", hint="shape")
def built_caches(student: Student) -> None:
    rng = np.random.default_rng(3)
    cases = []
    for D, d, window, T, steps in (
        (6, 3, 5, 40, [0, 1, 3, 4, 5, 6, 9, 10, 17, 24, 38, 39]),
        (4, 4, 7, 7, None),  # W = T: the window fills at the last token
        (5, 2, 2, 9, None),
        (8, 6, 16, 12, [0, 5, 11]),  # W > T: never full
        (3, 5, 3, 10, [2, 3, 4, 8, 9]),
    ):
        p = params(rng, D, d, spread=2.0)
        cases.append((rng.normal(size=(T, D)), p, window, f"D={D}, d={d}, W={window}", steps))
    steps_from_built_caches(student, cases)


@check("A long sequence (500 tokens, W = 64)")
def long_sequence(student: Student) -> None:
    rng = np.random.default_rng(4)
    D, d, window = 16, 8, 64
    p = params(rng, D, d)
    steps = [0, 31, 62, 63, 64, 65, 127, 128, 200, 333, 447, 498, 499]
    steps_from_built_caches(student, [(rng.normal(size=(500, D)), p, window, f"D={D}, d={d}, W={window}", steps)])


@check("Large inputs do not overflow the softmax", hint="stable-softmax")
def large_scores(student: Student) -> None:
    rng = np.random.default_rng(5)
    D, d, window = 8, 4, 5
    p = params(rng, D, d)
    X = rng.normal(size=(12, D)) * 300.0  # scores in the thousands: exp() of them overflows
    steps_from_built_caches(student, [(X, p, window, "large inputs", None)])


@check("The cache passed in is left unchanged", hint="no-mutation")
def input_cache_unchanged(student: Student) -> None:
    rng = np.random.default_rng(6)
    D, d, window = 5, 3, 4
    p = params(rng, D, d, spread=2.0)
    K, V = rng.normal(size=(window, d)), rng.normal(size=(window, d))
    x, y = rng.normal(size=D), rng.normal(size=D)
    # Two caches sharing one pair of arrays, at different counts (slots 1 and 2), and the first
    # cache again: a call that writes into the arrays or the count it was given changes what the
    # later calls see. Only the answers are evidence.
    first, second = {"k": K, "v": V, "n": 9}, {"k": K, "v": V, "n": 6}
    calls = [(x, first, p, window), (y, second, p, window), (x, first, p, window)]
    results = student.window_attend_step.each(calls)
    for n, ((z, cache, *_), result) in enumerate(zip(calls, results, strict=True), start=1):
        what = f"call {n} of 3 on caches sharing their arrays"
        out, new_cache = step_form(result, what)
        slot = cache["n"] % window
        keys, values = K.copy(), V.copy()
        keys[slot], values[slot] = z @ p["Wk"], z @ p["Wv"]
        s = keys @ (z @ p["Wq"]) / np.sqrt(d)
        want = np.exp(s - np.logaddexp.reduce(s)) @ values
        expect_array(out, want, what=f"out ({what})", hint="shape")
        expect_cache(new_cache, {"k": keys, "v": values, "n": cache["n"] + 1}, what)
