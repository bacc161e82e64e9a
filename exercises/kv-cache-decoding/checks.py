"""Hidden checks for "Decoding with a KV Cache".

Expected outputs come from full causal attention over the whole sequence (one masked softmax
over a (T, T) score matrix), computed here independently of any step-by-step code. A wrong answer
is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import (
    Student,
    check,
    describe,
    expect_array,
    expect_dict,
    expect_integer,
    expect_sequence,
    fail,
)

Params = dict[str, np.ndarray]


# --------------------------------------------------------------------------- independent reference


def causal_attention(X: np.ndarray, p: Params) -> np.ndarray:
    """Row t is what token t sees: softmax over tokens 0..t of q_t·k_i/√d, then the values."""
    Q, K, V = X @ p["Wq"], X @ p["Wk"], X @ p["Wv"]
    scores = Q @ K.T / np.sqrt(Q.shape[1])
    future = np.triu(np.ones(scores.shape, dtype=bool), k=1)
    scores = np.where(future, -np.inf, scores)
    scores -= scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights @ V


def attention_over(q: np.ndarray, K: np.ndarray, V: np.ndarray, scale: float) -> np.ndarray:
    s = K @ q / scale
    w = np.exp(s - s.max())
    return (w / w.sum()) @ V


def params(rng: np.random.Generator, D: int, d: int, spread: float = 1.0) -> Params:
    return {name: rng.normal(0, spread / np.sqrt(D), size=(D, d)) for name in ("Wq", "Wk", "Wv")}


def empty_cache(d: int) -> dict[str, np.ndarray]:
    return {"k": np.zeros((0, d)), "v": np.zeros((0, d))}


# --------------------------------------------------------------------------- talking to the solution


def step_form(result: Any, what: str) -> tuple[Any, dict[str, Any]]:
    """Check the form of what attend_step returned (not the values): (out, new_cache)."""
    out, new_cache = expect_sequence(result, 2, what=f"attend_step's return value ({what})", hint="shape")
    expect_dict(new_cache, ["k", "v"], what=f"new_cache ({what})", hint="shape")
    return out, new_cache


def step(student: Student, x: np.ndarray, cache: dict[str, Any], p: Params, what: str) -> tuple[Any, Any]:
    """One call of attend_step, its form checked."""
    return step_form(student.attend_step(x, cache, p), what)


def decode_and_compare(student: Student, X: np.ndarray, p: Params, label: str) -> dict[str, Any]:
    """Feed X token by token from an empty cache; each output must match full causal attention.

    One chain: each call gets the cache the previous one returned, all in one crossing.
    """
    expected = causal_attention(X, p)
    calls = [(x, empty_cache(p["Wq"].shape[1]) if t == 0 else None, p) for t, x in enumerate(X)]
    cache: Any = None
    for t, result in enumerate(student.attend_step.chain(calls, feed=(1, 1))):
        what = f"{label}, token {t + 1} of {len(X)}"
        out, cache = step_form(result, what)
        expect_array(out, expected[t], what=f"out ({what})", hint="shape")
    return cache


def steps_from_correct_caches(student: Student, cases: list[tuple[np.ndarray, Params, str, list[int] | None]]) -> None:
    """Steps of each sequence X (all of them unless a list picks some), each from the correct cache of
    the tokens before it, every case in one crossing.

    The steps are independent, so they cross the sandbox boundary in one batch; whether the
    solution reads its cache and nothing else is checked by ``caches_out_of_order``.
    """
    plans = []
    for X, p, label, steps in cases:
        K, V = X @ p["Wk"], X @ p["Wv"]
        picked = list(range(len(X))) if steps is None else steps
        plans.append((X, p, label, picked, causal_attention(X, p), K, V))
    calls = [(X[t], {"k": K[:t], "v": V[:t]}, p) for X, p, _, steps, _, K, V in plans for t in steps]
    results = iter(student.attend_step.each(calls))
    for X, _, label, steps, expected, K, V in plans:
        for t in steps:
            what = f"{label}, token {t + 1} of {len(X)}"
            out, new_cache = step_form(next(results), what)
            expect_array(out, expected[t], what=f"out ({what})", hint="shape")
            for key, rows in (("k", K), ("v", V)):
                expect_array(new_cache[key], rows[: t + 1], what=f'new_cache["{key}"] ({what})', hint="append-order")


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    p = {"Wq": np.eye(2), "Wk": np.eye(2), "Wv": np.diag([1.0, 2.0])}
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    decode_and_compare(student, X, p, "worked example")


@check("attend_step returns (out, new_cache) with out of shape (d,)", hint="shape")
def output_types(student: Student) -> None:
    rng = np.random.default_rng(1)
    p = params(rng, 6, 4)
    out, new_cache = step(student, rng.normal(size=6), empty_cache(4), p, "first token")
    if not isinstance(out, np.ndarray) or out.shape != (4,) or out.dtype.kind not in "fiu":
        fail(f"out should be a numpy array of d = 4 real numbers, shape (4,), got {describe(out)}", hint="shape")
    for key in ("k", "v"):
        value = new_cache[key]
        if not isinstance(value, np.ndarray) or value.shape != (1, 4):
            fail(f'new_cache["{key}"] should be an array of shape (1, 4) after one token from an empty cache, '
                 f"got {describe(value)}", hint="shape")  # fmt: skip


@check("The first step from an empty cache", hint="append")
def empty_cache_first_step(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = []
    for D, d in ((5, 3), (4, 1), (8, 8)):
        cases.append((D, d, params(rng, D, d), rng.normal(size=D)))
    results = student.attend_step.each([(x, empty_cache(d), p) for _, d, p, x in cases])
    for (D, d, p, x), result in zip(cases, results, strict=True):
        out, new_cache = step_form(result, f"D={D}, d={d}")
        # One token attends only to itself: the output is its own value.
        expect_array(out, x @ p["Wv"], what=f"out (D={D}, d={d}, empty cache)", hint="append")
        expect_array(new_cache["k"], (x @ p["Wk"])[None], what='new_cache["k"] after the first token', hint="append")


@check("The new cache holds the old rows and then the new key and value", hint="append-order")
def new_cache_contents(student: Student) -> None:
    rng = np.random.default_rng(3)
    D, d, t = 6, 4, 5
    p = params(rng, D, d)
    cache = {"k": rng.normal(size=(t, d)), "v": rng.normal(size=(t, d))}
    x = rng.normal(size=D)
    _, new_cache = step(student, x, cache, p, f"a cache of {t} tokens")
    for key, weight in (("k", "Wk"), ("v", "Wv")):
        got = new_cache[key]
        want = np.vstack([cache[key], (x @ p[weight])[None]])
        if isinstance(got, np.ndarray) and got.shape != want.shape:
            fail(f'new_cache["{key}"] should have shape {want.shape} (one row per token), got {got.shape}',
                 hint="shape")  # fmt: skip
        expect_array(got, want, what=f'new_cache["{key}"]', rtol=1e-9, atol=1e-12, hint="append-order")


@check("The cache passed in is left unchanged", hint="no-mutation")
def input_cache_unchanged(student: Student) -> None:
    rng = np.random.default_rng(4)
    D, d, t = 5, 3, 4
    p = params(rng, D, d)
    K = rng.normal(size=(t, d))
    cache = {"k": K.copy(), "v": rng.normal(size=(t, d))}
    x, y = rng.normal(size=D), rng.normal(size=D)
    # One cache and one set of weights for three calls in one crossing: as in any Python program, a
    # call that changes its arguments changes what the next call sees. Only the answers are
    # evidence; nothing the sandbox could report about its own objects is.
    results = student.attend_step.each([(x, cache, p), (y, cache, p), (x, cache, p)])
    answers = []
    for n, result in enumerate(results, start=1):
        what = f"call {n} of 3 on one cache of {t} tokens"
        out, new_cache = expect_sequence(result, 2, what=f"attend_step's return value ({what})", hint="shape")
        expect_dict(new_cache, ["k", "v"], what=f"new_cache ({what})", hint="shape")
        keys = new_cache["k"]
        if isinstance(keys, np.ndarray) and keys.ndim == 2 and keys.shape[0] > t + 1:
            # The given rows still first: the cache itself grew. Other rows: keys kept elsewhere.
            grew = keys.shape[1] == d and np.array_equal(keys[:t], K)
            fail(f'new_cache["k"] ({what}) has {keys.shape[0]} rows where {t + 1} were expected: '
                 + ("the keys of the other calls were added to the cache it was given"
                    if grew else "it holds keys that are not in the cache it was given"),
                 hint="no-mutation" if grew else "use-the-cache")  # fmt: skip
        answers.append(out)
    first, _, third = answers
    same = (
        isinstance(first, np.ndarray)
        and isinstance(third, np.ndarray)
        and first.shape == third.shape
        and np.allclose(first, third, rtol=1e-9, atol=1e-12, equal_nan=True)
    )
    if not same:
        fail("attend_step gave different answers to the first and third calls, which had the same token, cache "
             "and weights: the first call changed the cache or the weights it was given (or the function keeps "
             "state of its own between calls)", hint="no-mutation")  # fmt: skip


@check("Matches full causal attention for many shapes, D ≠ d", hint="scaling")
def random_shapes(student: Student) -> None:
    rng = np.random.default_rng(5)
    cases = []
    for D, d, T in ((3, 2, 6), (8, 4, 10), (5, 7, 8), (16, 8, 12), (32, 16, 9), (7, 3, 20), (12, 5, 15)):
        p = params(rng, D, d, spread=2.0)
        cases.append((rng.normal(size=(T, D)), p, f"D={D}, d={d}", None))
    steps_from_correct_caches(student, cases)


@check("Head size d = 1")
def head_size_one(student: Student) -> None:
    rng = np.random.default_rng(6)
    p = params(rng, 4, 1, spread=2.0)
    decode_and_compare(student, rng.normal(size=(12, 4)), p, "D=4, d=1")


@check("A long sequence (300 tokens)")
def long_sequence(student: Student) -> None:
    rng = np.random.default_rng(7)
    p = params(rng, 24, 16)
    # Every 15th step and the last few: caches of up to 299 rows, without sending all 300 of them
    # (the data sent grows with the square of the length).
    steps = [*range(0, 285, 15), *range(290, 300)]
    steps_from_correct_caches(student, [(rng.normal(size=(300, 24)), p, "D=24, d=16", steps)])


@check("Large inputs do not overflow the softmax", hint="stable-softmax")
def large_magnitudes(student: Student) -> None:
    rng = np.random.default_rng(8)
    p = params(rng, 8, 4)
    X = rng.normal(size=(10, 8)) * 300.0  # scores in the thousands: exp() of them overflows
    steps_from_correct_caches(student, [(X, p, "large inputs", None)])


@check("Caches reused, branched and built elsewhere", hint="use-the-cache")
def caches_out_of_order(student: Student) -> None:
    rng = np.random.default_rng(9)
    D, d = 6, 4
    p = params(rng, D, d, spread=2.0)
    X = rng.normal(size=(5, D))
    prefix_cache = decode_and_compare(student, X, p, "a 5-token prefix")
    K, V = X @ p["Wk"], X @ p["Wv"]
    a, b = rng.normal(size=D), rng.normal(size=D)
    K0, V0 = rng.normal(size=(7, d)), rng.normal(size=(7, d))
    # (token, cache sent, the rows that cache should hold, what): all five in one crossing.
    continuations = [
        (a, prefix_cache, K, V, "first branch from the 5-token cache"),
        (b, prefix_cache, K, V, "second branch from the same cache"),
        (a, prefix_cache, K, V, "the first branch replayed"),
        (b, {"k": K0, "v": V0}, K0, V0, "a 7-token cache made by the checker"),
        (a, empty_cache(d), K[:0], V[:0], "an empty cache after other calls"),
    ]
    results = student.attend_step.each([(x, cache, p) for x, cache, *_ in continuations])
    for (x, _, K_before, V_before, what), result in zip(continuations, results, strict=True):
        out, _ = step_form(result, what)
        q, k, v = x @ p["Wq"], x @ p["Wk"], x @ p["Wv"]
        want = attention_over(q, np.vstack([K_before, k[None]]), np.vstack([V_before, v[None]]), np.sqrt(d))
        expect_array(out, want, what=f"out ({what})", hint="shape")


@check("kv_cache_bytes on the statement's examples", public=True, hint="cache-formula")
def cache_bytes_examples(student: Student) -> None:
    cases = [((32, 32, 128, 8192, 2), 4 * 2**30, "G = 32"), ((32, 8, 128, 8192, 2), 2**30, "G = 8")]
    results = student.kv_cache_bytes.each([args for args, *_ in cases])
    for (_, want, heads), got in zip(cases, results, strict=True):
        expect_integer(got, want, what=f"kv_cache_bytes, the statement's example with {heads}", hint="integers")


@check("kv_cache_bytes is exact for other sizes, small and huge", hint="integers")
def cache_bytes_exact(student: Student) -> None:
    named = [
        ((1, 1, 1, 1, 1), "the smallest cache"),
        ((80, 8, 128, 32768, 2), "a large model's cache"),
        ((61, 3, 96, 10**6 + 7, 1), "odd sizes"),
        ((126, 8, 128, 10**15 + 1, 2), "more bytes than int64 can count"),  # beyond 2**63: float64 rounds too
    ]
    cases = [args for args, _ in named]
    for n, ((args, name), got) in enumerate(zip(named, student.kv_cache_bytes.each(cases), strict=True), start=1):
        n_layers, n_kv_heads, head_dim, n_tokens, bytes_per_value = args
        want = 2 * n_layers * n_kv_heads * head_dim * n_tokens * bytes_per_value
        expect_integer(got, want, what=f"kv_cache_bytes, case {n} of {len(named)} ({name})", hint="integers")
