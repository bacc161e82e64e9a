"""Hidden checks for "Mixture-of-Experts Routing with Capacity".

Expected values are computed here by another route than a token-by-token dispatch loop: the
router's probabilities in log space, each token's ranking with Python's ``sorted`` on
(−p, expert id), the capacity rule per expert (an expert keeps the first ``capacity`` of its
assignments in (rank, token) order), every expert applied densely to every token and the kept
gates gathered in one (N, E) matrix. A wrong answer is named by the grader, by comparing it with
the exercise's mutants on the same calls.
"""

from __future__ import annotations

import itertools
from typing import Any, NamedTuple

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_float, expect_integer, expect_sequence, fail

RTOL = 1e-9


class Want(NamedTuple):
    y: np.ndarray
    aux_loss: float
    n_dropped: int


# --------------------------------------------------------------------------- independent reference


def probabilities(x: np.ndarray, router_w: np.ndarray) -> np.ndarray:
    logits = x @ router_w
    return np.exp(logits - np.logaddexp.reduce(logits, axis=1, keepdims=True))


def rankings(p: np.ndarray, k: int) -> list[list[int]]:
    """Each token's first k experts: highest probability first, ties to the lower id.

    The checks' inputs keep every two probabilities of a token either exactly equal or clearly
    apart, so that floating point never decides the order (asserted here, for the author)."""
    n_experts = p.shape[1]
    ranked = []
    for row in p:
        order = sorted(range(n_experts), key=lambda e: (-row[e], e))
        top = [row[e] for e in order[: k + 1]]  # the choices and the first expert left out
        assert all(a == b or (b < a * (1 - 1e-7) and a > 1e-250) for a, b in itertools.pairwise(top)), (
            "near tie in the checks' data"
        )
        ranked.append(order[:k])
    return ranked


def moe(x: np.ndarray, router_w: np.ndarray, w_in: np.ndarray, w_out: np.ndarray, k: int, capacity: int) -> Want:
    n_tokens, n_experts = x.shape[0], router_w.shape[1]
    p = probabilities(x, router_w)
    ranked = rankings(p, k)
    # Every assignment (rank, token) of each expert, in the order of the capacity rule.
    queues: dict[int, list[tuple[int, int]]] = {e: [] for e in range(n_experts)}
    for n, experts in enumerate(ranked):
        for r, e in enumerate(experts):
            queues[e].append((r, n))
    gate_matrix = np.zeros((n_tokens, n_experts))
    n_kept = 0
    for e, queue in queues.items():
        for _rank, n in sorted(queue)[:capacity]:
            chosen = ranked[n]
            gate_matrix[n, e] = p[n, e] / sum(p[n, c] for c in chosen)
            n_kept += 1
    hidden = np.maximum(np.einsum("nd,edf->enf", x, w_in), 0.0)
    outputs = np.einsum("enf,efd->end", hidden, w_out)
    y = np.einsum("ne,end->nd", gate_matrix, outputs)
    aux = n_experts * sum(len(queues[e]) / (n_tokens * k) * float(np.mean(p[:, e])) for e in range(n_experts))
    return Want(y, aux, n_tokens * k - n_kept)


# --------------------------------------------------------------------------- comparing


def expect_result(got: Any, want: Want, what: str) -> None:
    """The form first (a tuple of three: a float64 (N, D) array, a float, an int), then each value."""
    y, aux, dropped = expect_sequence(got, 3, what=f"the return value ({what})", hint="form")
    if not isinstance(y, np.ndarray) or y.shape != want.y.shape or y.dtype != np.float64:
        fail(f"y ({what}) should be a float64 array of shape {want.y.shape}, one row per token, got {describe(y)}",
             hint="form")  # fmt: skip
    if not isinstance(aux, (float, np.floating)):
        fail(f"aux_loss ({what}) should be a float, got {describe(aux)}", hint="form")
    if isinstance(dropped, (bool, np.bool_)) or not isinstance(dropped, (int, np.integer)):
        fail(f"n_dropped ({what}) should be an int, got {describe(dropped)}", hint="form")
    scale = max(1.0, float(np.max(np.abs(want.y), initial=0.0)))
    expect_array(y, want.y, what=f"y ({what})", rtol=RTOL, atol=RTOL * scale)
    expect_float(aux, want.aux_loss, what=f"aux_loss ({what})", rtol=RTOL, atol=RTOL * max(1.0, abs(want.aux_loss)))
    expect_integer(dropped, want.n_dropped, what=f"n_dropped ({what})")


Case = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int]


def run(student: Student, cases: list[tuple[Case, str]]) -> None:
    """Every case in one crossing; the expected values from the arguments' own copies."""
    results = student.moe_forward.each([args for args, _ in cases])
    for n, ((args, label), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_result(got, moe(*args), f"case {n} of {len(cases)}: {label}")


def layer(rng: np.random.Generator, N: int, D: int, E: int, F: int, spread: float = 1.0) -> tuple:
    """Inputs, a router and experts; the pre-activations take both signs, so relu matters."""
    x = rng.normal(size=(N, D))
    router_w = rng.normal(size=(D, E)) * spread
    w_in = rng.normal(size=(E, D, F)) / np.sqrt(D)
    w_out = rng.normal(size=(E, F, D)) / np.sqrt(F)
    return x, router_w, w_in, w_out


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    x = np.array([[1.0], [2.0], [3.0]])
    router_w = np.array([[1.0, 0.0]])
    w_in = np.array([[[1.0]], [[1.0]]])
    w_out = np.array([[[2.0]], [[3.0]]])
    got = student.moe_forward(x, router_w, w_in, w_out, 1, 1)
    sigmoid = [1.0 / (1.0 + np.exp(-t)) for t in (1.0, 2.0, 3.0)]
    # By hand: every token prefers expert 0 (p = σ(n) > 1/2); only the first fits; gate 1, e0(1) = 2.
    expect_result(got, Want(np.array([[2.0], [0.0], [0.0]]), 2.0 * float(np.mean(sigmoid)), 2), "worked example")


@check("Returns (y, aux_loss, n_dropped): a float64 (N, D) array, a float, an int", hint="form")
def result_form(student: Student) -> None:
    rng = np.random.default_rng(1)
    x, router_w, w_in, w_out = layer(rng, 5, 3, 4, 6)
    y, aux, dropped = expect_sequence(student.moe_forward(x, router_w, w_in, w_out, 2, 2), 3,
                                      what="the return value of 5 tokens, D = 3, 4 experts")  # fmt: skip
    if not isinstance(y, np.ndarray) or y.shape != (5, 3) or y.dtype != np.float64:
        fail(f"y should be a float64 array of shape (5, 3), one row of size D per token, got {describe(y)}")
    if not isinstance(aux, (float, np.floating)):
        fail(f"aux_loss should be a float (a Python float or a numpy float64), got {describe(aux)}")
    if isinstance(dropped, (bool, np.bool_)) or not isinstance(dropped, (int, np.integer)):
        fail(f"n_dropped should be an int, got {describe(dropped)}")


@check("Room for every choice: gates, experts and the balance loss", hint="gates")
def no_dropping(student: Student) -> None:
    rng = np.random.default_rng(2)
    cases = []
    for N, D, E, F, k in ((6, 4, 4, 8, 2), (9, 3, 6, 5, 3), (4, 5, 3, 7, 1), (12, 6, 8, 4, 2), (5, 2, 5, 3, 5),
                          (7, 8, 2, 16, 2)):  # fmt: skip
        cases.append(((*layer(rng, N, D, E, F), k, N), f"{N} tokens, {E} experts, capacity for all"))
    run(student, cases)


@check("Capacity is filled rank by rank: first choices before second choices", hint="capacity-order")
def capacity_rank_by_rank(student: Student) -> None:
    rng = np.random.default_rng(3)
    cases = []
    for N, D, E, F, k, capacity in ((8, 4, 4, 6, 2, 3), (10, 3, 5, 4, 2, 2), (12, 5, 6, 8, 3, 4),
                                    (6, 4, 3, 5, 2, 3), (15, 6, 4, 6, 3, 6)):  # fmt: skip
        cases.append(((*layer(rng, N, D, E, F, spread=1.5), k, capacity), f"{N} tokens, {E} experts, over capacity"))
    run(student, cases)


@check("Experts of equal probability: the lower id ranks first", hint="ties")
def exact_ties(student: Student) -> None:
    rng = np.random.default_rng(4)
    cases = []
    for N, D, E, F, k, capacity, twins in ((6, 3, 4, 5, 1, 6, (1, 2)), (8, 4, 5, 4, 2, 8, (0, 3)),
                                           (7, 3, 4, 6, 2, 3, (2, 3)), (5, 2, 3, 4, 2, 5, (0, 2))):  # fmt: skip
        x, router_w, w_in, w_out = layer(rng, N, D, E, F)
        a, b = twins
        router_w[:, a] = router_w[:, b] = router_w[:, a] + 1.0  # identical columns: equal probabilities
        x[:, :] = np.abs(x)  # positive inputs, so the twins (raised by +1 per input) are usually on top
        cases.append(((x, router_w, w_in, w_out, k, capacity), f"{N} tokens, {E} experts, two of them twins"))
    x, router_w, w_in, w_out = layer(rng, 4, 3, 3, 4)
    router_w[:] = 0.0  # every token: p = 1/3 for all three, so the ranking is by id alone
    cases.append(((x, router_w, w_in, w_out, 2, 4), "4 tokens, 3 experts, all equally likely"))
    run(student, cases)


@check("Capacity 0, capacity exactly the demand, and every expert chosen", hint="capacity-order")
def capacity_edges(student: Student) -> None:
    rng = np.random.default_rng(5)
    x, router_w, w_in, w_out = layer(rng, 7, 4, 4, 5)
    demand = np.bincount(np.argmax(x @ router_w, axis=1), minlength=4)  # first choices per expert
    cases = [
        ((x, router_w, w_in, w_out, 2, 0), "7 tokens, capacity 0: every choice dropped"),
        ((x, router_w, w_in, w_out, 1, int(demand.max())), "7 tokens, one choice each, capacity the busiest load"),
        ((x, router_w, w_in, w_out, 1, int(demand.max()) - 1), "7 tokens, one choice each, capacity one below it"),
        ((x, router_w, w_in, w_out, 4, 7), "7 tokens, every expert chosen, room for all"),
        ((x, router_w, w_in, w_out, 4, 3), "7 tokens, every expert chosen, over capacity"),
    ]
    x, router_w, w_in, w_out = layer(rng, 6, 3, 3, 4)
    router_w[:, 0] += 3.0  # expert 0 first for most tokens: later tokens lose every choice
    x = np.abs(x)
    cases.append(((x, router_w, w_in, w_out, 1, 2), "6 tokens crowding one expert"))
    run(student, cases)


@check("A realistic layer: 200 tokens, 8 experts, top-2, capacity factor 1.25", hint="capacity-order")
def realistic_layer(student: Student) -> None:
    rng = np.random.default_rng(6)
    N, E, k = 200, 8, 2
    capacity = int(np.ceil(1.25 * N * k / E))
    x, router_w, w_in, w_out = layer(rng, N, 16, E, 32)
    x[:, 0] = 1.0  # a constant feature: the router's row 0 acts as a bias
    router_w[0] = 0.0
    router_w[0, 3], router_w[0, 5] = 1.5, 1.0  # two popular experts, over their capacity
    run(student, [((x, router_w, w_in, w_out, k, capacity), f"{N} tokens, {E} experts")])


@check("Router logits in the thousands do not overflow", hint="stable")
def large_logits(student: Student) -> None:
    rng = np.random.default_rng(7)
    cases = []
    for N, E, k, capacity in ((6, 4, 2, 6), (8, 5, 3, 4)):
        x, router_w, w_in, w_out = layer(rng, N, 4, E, 4, spread=2.0)
        # The last feature adds the same large offset to every logit of a token (its router row is
        # all ones, its expert rows zero): the probabilities are ordinary, the logits are not.
        x[:, -1] = rng.choice([-1.0, 1.0], size=N) * rng.uniform(800.0, 3000.0, size=N)
        router_w[-1] = 1.0
        w_in[:, -1, :] = 0.0
        cases.append(((x, router_w, w_in, w_out, k, capacity), f"{N} tokens, {E} experts, huge logits"))
    # A constant feature whose router row puts one expert about 900 below the others: a token's
    # logits then span more than exp() can take, whichever constant is subtracted but the max.
    x, router_w, w_in, w_out = layer(rng, 6, 3, 4, 5)
    x[:, -1] = 1.0
    router_w[-1] = [0.0, 0.5, -900.0, 1.0]
    cases.append(((x, router_w, w_in, w_out, 2, 6), "6 tokens, 4 experts, logits far apart within a token"))
    run(student, cases)


@check("The inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student) -> None:
    rng = np.random.default_rng(8)
    x, router_w, w_in, w_out = layer(rng, 6, 4, 4, 5)
    args = (x, router_w, w_in, w_out, 2, 3)
    # The same arrays for two calls in one crossing: a first call that changes them changes what
    # the second one sees.
    first, second = student.moe_forward.each([args, args])
    want = moe(*args)
    expect_result(first, want, "the first of two calls on the same arrays")
    expect_result(second, want, "the second of two calls on the same arrays")
