"""Hidden checks for "Chunked Linear Attention with Decay".

Expected values come from the recurrent form, one token at a time (S_t = gamma·S_{t−1} + k_t v_tᵀ,
out_t = q_t S_t), never from chunks: the state after each chunk is read off the recurrence at
that chunk's last token. The worked example is also checked against the statement's numbers. A
wrong answer is named by the grader, by comparing it with the exercise's mutants on the same
calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail

RTOL = 1e-9


# --------------------------------------------------------------------------- independent reference


def recurrent(q: np.ndarray, k: np.ndarray, v: np.ndarray, gamma: float, chunk: int) -> tuple[np.ndarray, np.ndarray]:
    """Token by token: the state after token t, and the output it gives q_t."""
    T, dk = k.shape
    S = np.zeros((dk, v.shape[1]))
    out, states = [], []
    for t in range(T):
        S = gamma * S + np.outer(k[t], v[t])
        out.append(q[t] @ S)
        if t % chunk == chunk - 1 or t == T - 1:
            states.append(S.copy())
    return np.array(out), np.array(states)


# --------------------------------------------------------------------------- comparing


def close(got: Any, want: np.ndarray, what: str) -> None:
    scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
    expect_array(got, want, what=what, rtol=RTOL, atol=RTOL * scale)


def expect_result(got: Any, want: tuple[np.ndarray, np.ndarray], what: str) -> None:
    """The form first (a tuple of two float64 arrays of the stated shapes), then the values."""
    out, states = expect_sequence(got, 2, what=f"the return value ({what})", hint="form")
    want_out, want_states = want
    if not isinstance(out, np.ndarray) or out.shape != want_out.shape or out.dtype != np.float64:
        fail(f"out ({what}) should be a float64 array of shape {want_out.shape}, one row per token, got "
             f"{describe(out)}", hint="form")  # fmt: skip
    if not isinstance(states, np.ndarray) or states.ndim != 3 or states.shape[1:] != want_states.shape[1:]:
        fail(f"states ({what}) should be a float64 array of shape {want_states.shape}, one (dk, dv) state per "
             f"chunk, got {describe(states)}", hint="form")  # fmt: skip
    if states.shape[0] != want_states.shape[0]:
        fail(f"states ({what}) should hold {want_states.shape[0]} states, one per chunk, the last (shorter) "
             f"chunk included, got {states.shape[0]}", hint="last-chunk")  # fmt: skip
    if states.dtype != np.float64:
        fail(f"states ({what}) should be a float64 array, got {describe(states)}", hint="form")
    close(out, want_out, f"out ({what})")
    close(states, want_states, f"states ({what})")


Case = tuple[np.ndarray, np.ndarray, np.ndarray, float, int]


def run(student: Student, cases: list[tuple[Case, str]]) -> None:
    """Every case in one crossing."""
    results = student.chunked_linear_attention.each([args for args, _ in cases])
    for n, ((args, label), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_result(got, recurrent(*args), f"case {n} of {len(cases)}: {label}")


def qkv(rng: np.random.Generator, T: int, dk: int, dv: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return rng.normal(size=(T, dk)), rng.normal(size=(T, dk)) / np.sqrt(dk), rng.normal(size=(T, dv))


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    ones = np.ones((3, 1))
    got = student.chunked_linear_attention(ones, ones, np.array([[1.0], [2.0], [3.0]]), 0.5, 2)
    # By hand: S = 1, then 0.5·1 + 2 = 2.5 (end of chunk 0), then 0.5·2.5 + 3 = 4.25 (end of chunk 1).
    expect_result(got, (np.array([[1.0], [2.5], [4.25]]), np.array([[[2.5]], [[4.25]]])), "worked example")


@check("Returns (out, states): float64 arrays of shapes (T, dv) and (n_chunks, dk, dv)", hint="form")
def result_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    q, k, v = qkv(rng, 7, 3, 2)
    out, states = expect_sequence(student.chunked_linear_attention(q, k, v, 0.9, 3), 2,
                                  what="the return value for T = 7, dk = 3, dv = 2, chunks of 3")  # fmt: skip
    if not isinstance(out, np.ndarray) or out.shape != (7, 2) or out.dtype != np.float64:
        fail(f"out should be a float64 array of shape (7, 2), one row of size dv per token, got {describe(out)}")
    if not isinstance(states, np.ndarray) or states.shape != (3, 3, 2) or states.dtype != np.float64:
        fail("states should be a float64 array of shape (3, 3, 2): ceil(7 / 3) = 3 chunks, the last one token "
             f"long, each with a (dk, dv) state, got {describe(states)}")  # fmt: skip


@check("Many shapes: T rarely a multiple of chunk, dk ≠ dv", hint="decay")
def random_shapes(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = []
    for T, dk, dv, gamma, chunk in ((10, 4, 3, 0.9, 4), (12, 3, 5, 0.7, 3), (9, 2, 2, 0.5, 2), (16, 8, 4, 0.95, 5),
                                    (13, 5, 1, 0.8, 6), (20, 1, 3, 0.6, 7), (31, 6, 6, 0.99, 8)):  # fmt: skip
        cases.append(((*qkv(rng, T, dk, dv), gamma, chunk), f"T={T}, dk={dk}, dv={dv}"))
    run(student, cases)


@check("Chunks of one token, one chunk longer than T, one chunk exactly T", hint="last-chunk")
def chunk_edges(student: Student) -> None:
    rng = np.random.default_rng(3)
    cases = [
        ((*qkv(rng, 6, 3, 2), 0.8, 1), "T=6, chunks of one token"),
        ((*qkv(rng, 5, 2, 3), 0.7, 8), "T=5, one chunk longer than T"),
        ((*qkv(rng, 8, 3, 3), 0.6, 8), "T=8, one chunk of exactly T"),
        ((*qkv(rng, 1, 4, 2), 0.9, 3), "T=1, one token"),
        ((*qkv(rng, 11, 2, 4), 0.75, 5), "T=11, a last chunk of one token"),
        ((*qkv(rng, 14, 3, 2), 0.85, 4), "T=14, a last chunk of two tokens"),
    ]
    run(student, cases)


@check("gamma = 1: plain causal linear attention, nothing forgotten", hint="decay")
def no_decay(student: Student) -> None:
    rng = np.random.default_rng(4)
    cases = [((*qkv(rng, T, dk, dv), 1.0, chunk), f"T={T}, dk={dk}, dv={dv}")
             for T, dk, dv, chunk in ((10, 3, 2, 4), (7, 2, 3, 7), (9, 4, 4, 2))]  # fmt: skip
    run(student, cases)


@check("A long sequence with strong decay: 600 tokens, gamma = 0.25", hint="overflow")
def long_sequence(student: Student) -> None:
    rng = np.random.default_rng(5)
    q, k, v = qkv(rng, 600, 8, 4)
    cases = [((q, k, v, 0.25, chunk), f"T=600, dk=8, dv=4, {600 // chunk + (600 % chunk > 0)} chunks")
             for chunk in (64, 100, 600)]  # fmt: skip
    run(student, cases)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    rng = np.random.default_rng(6)
    q, k, v = qkv(rng, 9, 3, 2)
    args = (q, k, v, 0.8, 4)
    # The same arrays for two calls in one crossing: a first call that changes them changes what
    # the second one sees.
    first, second = student.chunked_linear_attention.each([args, args])
    want = recurrent(*args)
    expect_result(first, want, "the first of two calls on the same arrays")
    expect_result(second, want, "the second of two calls on the same arrays")
