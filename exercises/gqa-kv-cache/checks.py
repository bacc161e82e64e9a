"""Hidden checks for "Grouped-Query Attention with a KV Cache".

Expected outputs come from full causal attention over the whole sequence, one query head at a
time: the head's columns are sliced out of the weight matrices by hand, its KV head is looked up
by the grouping rule, and the softmax is taken in log space over a masked (T, T) score matrix.
Nothing here reshapes, repeats or steps through a cache, as a solution does. A wrong answer is
named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_dict, expect_sequence, fail

Params = dict[str, np.ndarray]
# (sequence X, weights, n_heads, n_kv_heads, label, the steps to check or None for all of them)
Case = tuple[np.ndarray, Params, int, int, str, list[int] | None]


# --------------------------------------------------------------------------- independent reference


def columns(h: int, d: int) -> slice:
    return slice(h * d, (h + 1) * d)


def gqa_causal(X: np.ndarray, p: Params, H: int, G: int) -> np.ndarray:
    """Row t is the output for token t: each head's causal attention, heads side by side."""
    d = p["Wq"].shape[1] // H
    T = len(X)
    future = np.triu(np.ones((T, T), dtype=bool), k=1)
    out = np.zeros((T, H * d))
    for h in range(H):
        g = h * G // H  # the KV head of query head h: floor(h / (H / G))
        Q = X @ p["Wq"][:, columns(h, d)]
        K = X @ p["Wk"][:, columns(g, d)]
        V = X @ p["Wv"][:, columns(g, d)]
        s = np.where(future, -np.inf, Q @ K.T / np.sqrt(d))
        out[:, columns(h, d)] = np.exp(s - np.logaddexp.reduce(s, axis=1, keepdims=True)) @ V
    return out


def kv_heads(X: np.ndarray, W: np.ndarray, G: int) -> np.ndarray:
    """Keys (or values) of every token, per KV head: shape (G, T, d)."""
    d = W.shape[1] // G
    return np.stack([X @ W[:, columns(g, d)] for g in range(G)])


def params(rng: np.random.Generator, D: int, H: int, G: int, d: int, spread: float = 1.0) -> Params:
    scale = spread / np.sqrt(D)
    return {
        "Wq": rng.normal(0, scale, size=(D, H * d)),
        "Wk": rng.normal(0, scale, size=(D, G * d)),
        "Wv": rng.normal(0, scale, size=(D, G * d)),
    }


def empty_cache(G: int, d: int) -> dict[str, np.ndarray]:
    return {"k": np.zeros((G, 0, d)), "v": np.zeros((G, 0, d))}


# --------------------------------------------------------------------------- talking to the solution


def step_form(result: Any, what: str) -> tuple[Any, dict[str, Any]]:
    """The form of what gqa_attend_step returned (not its values): (out, new_cache)."""
    out, new_cache = expect_sequence(result, 2, what=f"gqa_attend_step's return value ({what})", hint="shape")
    expect_dict(new_cache, ["k", "v"], what=f"new_cache ({what})", hint="shape")
    return out, new_cache


def expect_cache(new_cache: dict[str, Any], K: np.ndarray, V: np.ndarray, what: str) -> None:
    """new_cache must hold exactly the keys K and values V, each of shape (G, t + 1, d)."""
    for key, rows in (("k", K), ("v", V)):
        got = new_cache[key]
        repeated = isinstance(got, np.ndarray) and got.ndim == 3 and got.shape[1:] == rows.shape[1:]
        if repeated and got.shape[0] > len(rows):
            fail(f'new_cache["{key}"] ({what}) holds {got.shape[0]} heads where G = {len(rows)} were expected: '
                 "the cache must keep one entry per KV head, not one per query head", hint="cache-shape")  # fmt: skip
        if isinstance(got, np.ndarray) and got.ndim == 3 and got.shape[1] > rows.shape[1]:
            fail(f'new_cache["{key}"] ({what}) holds {got.shape[1]} tokens where {rows.shape[1]} were expected: '
                 "later calls added their tokens to it. Return a new dict of new arrays, and leave the cache "
                 "you are given as it was", hint="no-mutation")  # fmt: skip
        expect_array(got, rows, what=f'new_cache["{key}"] ({what})', rtol=1e-9, atol=1e-12, hint="cache-shape")


def decode(student: Student, X: np.ndarray, p: Params, H: int, G: int, label: str) -> None:
    """Feed X token by token from an empty cache, in one chain; each output must match causal attention."""
    d = p["Wq"].shape[1] // H
    expected = gqa_causal(X, p, H, G)
    K, V = kv_heads(X, p["Wk"], G), kv_heads(X, p["Wv"], G)
    calls = [(x, empty_cache(G, d) if t == 0 else None, p, H, G) for t, x in enumerate(X)]
    for t, result in enumerate(student.gqa_attend_step.chain(calls, feed=(1, 1))):
        what = f"{label}, token {t + 1} of {len(X)}"
        out, new_cache = step_form(result, what)
        expect_array(out, expected[t], what=f"out ({what})", hint="shape")
        expect_cache(new_cache, K[:, : t + 1], V[:, : t + 1], what)


def steps_from_correct_caches(student: Student, cases: list[Case]) -> None:
    """Steps of each sequence, each from the correct cache of the tokens before it, all in one crossing."""
    plans = []
    for X, p, H, G, label, steps in cases:
        picked = list(range(len(X))) if steps is None else steps
        K, V = kv_heads(X, p["Wk"], G), kv_heads(X, p["Wv"], G)
        plans.append((X, p, H, G, label, picked, gqa_causal(X, p, H, G), K, V))
    calls = [(X[t], {"k": K[:, :t], "v": V[:, :t]}, p, H, G) for X, p, H, G, _, steps, _, K, V in plans for t in steps]
    results = iter(student.gqa_attend_step.each(calls))
    for X, _, _, _, label, steps, expected, K, V in plans:
        for t in steps:
            what = f"{label}, token {t + 1} of {len(X)}"
            out, new_cache = step_form(next(results), what)
            expect_array(out, expected[t], what=f"out ({what})", hint="shape")
            expect_cache(new_cache, K[:, : t + 1], V[:, : t + 1], what)


def label(D: int, H: int, G: int, d: int) -> str:
    return f"D={D}, H={H} query heads, G={G} KV heads, d={d}"


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    p = {
        "Wq": np.array([[1.0, 1.0, 1.0, 1.0], [1.0, -1.0, 2.0, 0.0]]),
        "Wk": np.eye(2),
        "Wv": np.diag([1.0, 2.0]),
    }
    X = np.array([[1.0, 0.0], [0.0, 1.0]])
    decode(student, X, p, 4, 2, "worked example")


@check("gqa_attend_step returns (out, new_cache) with out of shape (H·d,) and G heads cached", hint="shape")
def output_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    D, H, G, d = 5, 6, 2, 3
    p = params(rng, D, H, G, d)
    out, new_cache = step_form(student.gqa_attend_step(rng.normal(size=D), empty_cache(G, d), p, H, G), "first token")
    if not isinstance(out, np.ndarray) or out.shape != (H * d,) or out.dtype != np.float64:
        fail(f"out should be a float64 array of H·d = {H * d} numbers, shape ({H * d},), got {describe(out)}",
             hint="shape")  # fmt: skip
    for key in ("k", "v"):
        value = new_cache[key]
        if isinstance(value, np.ndarray) and value.shape == (H, 1, d):
            fail(f'new_cache["{key}"] has shape {value.shape}: one entry per query head. It should keep the '
                 f"G = {G} KV heads only, shape ({G}, 1, {d}) after one token", hint="cache-shape")  # fmt: skip
        if not isinstance(value, np.ndarray) or value.shape != (G, 1, d):
            fail(f'new_cache["{key}"] should have shape ({G}, 1, {d}) (KV heads, tokens, head size) after one '
                 f"token from an empty cache, got {describe(value)}", hint="cache-shape")  # fmt: skip


@check("Decoding from an empty cache matches causal attention, token by token", hint="shape")
def decode_from_empty(student: Student) -> None:
    rng = np.random.default_rng(2)
    for D, H, G, d, T in ((5, 6, 3, 2, 6), (7, 8, 2, 3, 5)):
        p = params(rng, D, H, G, d, spread=2.0)
        decode(student, rng.normal(size=(T, D)), p, H, G, label(D, H, G, d))


@check("Many shapes: multi-query (G = 1), multi-head (G = H) and groups in between", hint="shape")
def many_shapes(student: Student) -> None:
    rng = np.random.default_rng(3)
    cases: list[Case] = []
    shapes = ((6, 4, 2, 3, 7), (9, 6, 3, 4, 6), (4, 8, 4, 2, 5), (5, 4, 1, 3, 6), (7, 3, 3, 2, 5), (3, 6, 2, 1, 8),
              (12, 12, 4, 5, 6), (8, 2, 1, 6, 5))  # fmt: skip
    for D, H, G, d, T in shapes:
        p = params(rng, D, H, G, d, spread=2.0)
        cases.append((rng.normal(size=(T, D)), p, H, G, label(D, H, G, d), None))
    steps_from_correct_caches(student, cases)


@check("A long sequence (200 tokens)")
def long_sequence(student: Student) -> None:
    rng = np.random.default_rng(4)
    D, H, G, d = 16, 8, 2, 4
    p = params(rng, D, H, G, d)
    steps = [*range(0, 190, 19), *range(195, 200)]
    steps_from_correct_caches(student, [(rng.normal(size=(200, D)), p, H, G, label(D, H, G, d), steps)])


@check("Huge scores, very different from head to head, do not overflow the softmax", hint="stable-softmax")
def large_scores(student: Student) -> None:
    rng = np.random.default_rng(5)
    D, H, G, d, T = 6, 4, 2, 3, 8
    p = params(rng, D, H, G, d)
    # Head 0's scores reach the hundreds of thousands, head 1's stay near 1: a softmax must subtract
    # each head's own largest score.
    for h, factor in enumerate((300.0, 0.01, 100.0, 1.0)):
        p["Wq"][:, columns(h, d)] *= factor
    X = rng.normal(size=(T, D)) * 20.0
    steps_from_correct_caches(student, [(X, p, H, G, "huge scores", None)])


@check("The cache passed in is left unchanged", hint="no-mutation")
def input_cache_unchanged(student: Student) -> None:
    rng = np.random.default_rng(6)
    D, H, G, d, t = 5, 4, 2, 3, 4
    p = params(rng, D, H, G, d, spread=2.0)
    X = rng.normal(size=(t + 1, D))
    K, V = kv_heads(X, p["Wk"], G), kv_heads(X, p["Wv"], G)
    cache = {"k": K[:, :t].copy(), "v": V[:, :t].copy()}
    x, y = X[t], rng.normal(size=D)
    expected = gqa_causal(X, p, H, G)[t]
    # One cache and one set of weights for three calls in one crossing: a call that changes its
    # arguments changes what the later calls see, and only the answers are evidence.
    results = student.gqa_attend_step.each([(x, cache, p, H, G), (y, cache, p, H, G), (x, cache, p, H, G)])
    for n, result in enumerate(results, start=1):
        what = f"call {n} of 3 on one cache of {t} tokens"
        out, new_cache = step_form(result, what)
        keys = new_cache["k"]
        if isinstance(keys, np.ndarray) and keys.ndim == 3 and keys.shape[1] > t + 1:
            fail(f'new_cache["k"] ({what}) holds {keys.shape[1]} tokens where {t + 1} were expected: the keys of '
                 "the other calls were added to the cache it was given", hint="no-mutation")  # fmt: skip
        if n != 2:
            expect_array(out, expected, what=f"out ({what})", hint="shape")
            expect_cache(new_cache, K, V, what)
