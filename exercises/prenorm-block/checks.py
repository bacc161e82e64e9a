"""Hidden checks for "A Pre-Norm Decoder Block".

Expected outputs are computed token by token and head by head with plain loops: each token's
RMSNorm from the sum of its squares, each query's softmax over the keys 0 … t alone (no mask, no
-inf), written as exp(s - logsumexp(s)), and SiLU as z·(1 + tanh(z/2))/2. Nothing here shares the
vectorised, masked form a solution uses.
"""

from __future__ import annotations

import math

import numpy as np

from grader.checks import Student, check, describe, expect_array, fail

Params = dict[str, np.ndarray]

# --------------------------------------------------------------------------- independent reference


def rms_row(u: np.ndarray, w: np.ndarray, eps: float) -> np.ndarray:
    return u * w / math.sqrt(math.fsum(float(c) * float(c) for c in u) / len(u) + eps)


def silu(z: np.ndarray) -> np.ndarray:
    return z * (1 + np.tanh(z / 2)) / 2


def expected_block(x: np.ndarray, p: Params, n_heads: int, eps: float) -> np.ndarray:
    T, D = x.shape
    dh = D // n_heads
    u = np.array([rms_row(x[t], p["attn_norm"], eps) for t in range(T)])
    q, k, v = u @ p["wq"], u @ p["wk"], u @ p["wv"]
    attended = np.zeros((T, D))
    for t in range(T):
        for i in range(n_heads):
            lo, hi = i * dh, (i + 1) * dh
            s = np.array([q[t, lo:hi] @ k[j, lo:hi] for j in range(t + 1)]) / math.sqrt(dh)
            w = np.exp(s - np.logaddexp.reduce(s))
            attended[t, lo:hi] = sum(w[j] * v[j, lo:hi] for j in range(t + 1))
    h = x + attended @ p["wo"]
    y = np.empty((T, D))
    for t in range(T):
        g = rms_row(h[t], p["mlp_norm"], eps)
        y[t] = h[t] + (silu(g @ p["w_gate"]) * (g @ p["w_up"])) @ p["w_down"]
    return y


def make_params(rng: np.random.Generator, D: int, F: int, scale: float = 1.0) -> Params:
    return {
        "attn_norm": rng.uniform(0.5, 1.5, size=D),
        "wq": rng.normal(0, scale / math.sqrt(D), size=(D, D)),
        "wk": rng.normal(0, scale / math.sqrt(D), size=(D, D)),
        "wv": rng.normal(0, 1 / math.sqrt(D), size=(D, D)),
        "wo": rng.normal(0, 1 / math.sqrt(D), size=(D, D)),
        "mlp_norm": rng.uniform(0.5, 1.5, size=D),
        "w_gate": rng.normal(0, 1 / math.sqrt(D), size=(D, F)),
        "w_up": rng.normal(0, 1 / math.sqrt(D), size=(D, F)),
        "w_down": rng.normal(0, 1 / math.sqrt(F), size=(F, D)),
    }


def compare(got: object, want: np.ndarray, what: str) -> None:
    if not isinstance(got, np.ndarray):
        fail(f"{what} should be a float64 numpy array of shape {want.shape}, got {describe(got)}", hint="form")
    expect_array(
        got, want, what=what, dtype=np.float64, rtol=1e-9, atol=1e-9 * max(1.0, float(np.abs(want).max())), hint="form"
    )


Case = tuple[np.ndarray, Params, int, float, str]


def run(student: Student, cases: list[Case]) -> None:
    results = student.prenorm_block.each([(x, p, n_heads, eps) for x, p, n_heads, eps, _ in cases])
    for (x, p, n_heads, eps, what), got in zip(cases, results, strict=True):
        compare(got, expected_block(x, p, n_heads, eps), what)


# --------------------------------------------------------------------------- the checks


def worked_params(w_down: np.ndarray) -> Params:
    eye = np.eye(2)
    return {"attn_norm": np.ones(2), "wq": eye, "wk": eye, "wv": eye, "wo": eye, "mlp_norm": np.ones(2),
            "w_gate": eye, "w_up": eye, "w_down": w_down}  # fmt: skip


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    x = np.array([[3.0, 4.0]])
    h = x + x / math.sqrt(12.5)
    u = x / math.sqrt(12.5)
    results = student.prenorm_block.each([(x, worked_params(np.zeros((2, 2))), 1, 0.0),
                                          (x, worked_params(np.eye(2)), 1, 0.0)])  # fmt: skip
    compare(results[0], h, "y with w_down = 0")
    compare(results[1], h + silu(u) * u, "y with w_down = I")


@check("Returns a float64 array of shape (T, D)", hint="form")
def output_form(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for T, D, H, F in ((1, 4, 2, 6), (5, 6, 3, 4), (3, 8, 1, 12)):
        cases.append((rng.normal(size=(T, D)), make_params(rng, D, F), H, 1e-6, f"y (T={T}, D={D}, {H} heads)"))
    run(student, cases)


@check("Several tokens and heads, F ≠ D", hint="heads")
def random_blocks(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for T, D, H, F in ((6, 8, 2, 12), (9, 12, 3, 20), (7, 16, 4, 10), (12, 6, 2, 16), (5, 10, 5, 8)):
        x = rng.normal(0.3, 1.5, size=(T, D))
        cases.append((x, make_params(rng, D, F, scale=2.0), H, 1e-5, f"y (T={T}, D={D}, {H} heads, F={F})"))
    run(student, cases)


@check("Later tokens do not change earlier ones (causal)", hint="causal")
def causal(student: Student, rng: np.random.Generator) -> None:
    T, D, H, F = 8, 8, 2, 12
    p = make_params(rng, D, F, scale=2.0)
    x = rng.normal(size=(T, D))
    changed = x.copy()
    changed[5:] = rng.normal(size=(3, D)) * 3
    run(student, [(x, p, H, 1e-6, "y of 8 tokens"), (changed, p, H, 1e-6, "y of 8 tokens, the last three changed")])


@check("One head, and heads of size 1", hint="heads")
def head_sizes(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for T, D, H, F in ((6, 6, 1, 9), (5, 4, 4, 6), (7, 6, 6, 5)):
        x = rng.normal(size=(T, D))
        cases.append((x, make_params(rng, D, F, scale=2.0), H, 1e-6, f"y (T={T}, D={D}, {H} heads)"))
    run(student, cases)


@check("A single token", hint="causal")
def single_token(student: Student, rng: np.random.Generator) -> None:
    D, F = 6, 10
    cases = [(rng.normal(size=(1, D)), make_params(rng, D, F), H, 1e-6, f"y (T=1, {H} heads)") for H in (1, 3)]
    run(student, cases)


@check("RMSNorm: no mean subtracted, eps inside the square root", hint="rmsnorm")
def rmsnorm_details(student: Student, rng: np.random.Generator) -> None:
    T, D, H, F = 6, 8, 2, 12
    cases = []
    # Rows with a large mean (a LayerNorm would remove it), small rows where eps weighs (inside or
    # outside the root differ), and eps = 0.
    x_mean = rng.normal(size=(T, D)) + 4.0
    x_small = rng.normal(size=(T, D)) * 0.05
    cases.append((x_mean, make_params(rng, D, F, scale=2.0), H, 1e-6, "y for rows far from zero mean"))
    cases.append((x_small, make_params(rng, D, F, scale=2.0), H, 1e-3, "y for small rows, eps comparable to them"))
    cases.append((rng.normal(size=(T, D)), make_params(rng, D, F, scale=2.0), H, 0.0, "y with eps = 0"))
    run(student, cases)


@check("Scores in the thousands do not overflow the softmax", hint="stable")
def large_scores(student: Student, rng: np.random.Generator) -> None:
    T, D, H, F = 10, 8, 2, 12
    p = make_params(rng, D, F)
    p["wq"] = p["wq"] * 60.0
    p["wk"] = p["wk"] * 60.0
    run(student, [(rng.normal(size=(T, D)), p, H, 1e-6, "y with scores of a few thousand")])


@check("x and params are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    T, D, H, F = 5, 6, 3, 8
    p = make_params(rng, D, F, scale=2.0)
    x = rng.normal(size=(T, D))
    want = expected_block(x, p, H, 1e-6)
    # The same x and params for two calls in one crossing: a call that writes into them changes
    # what the second call is given.
    first, second = student.prenorm_block.each([(x, p, H, 1e-6), (x, p, H, 1e-6)])
    compare(first, want, "y from the first of two calls on the same x and params")
    compare(second, want, "y from the second call on the same x and params")
