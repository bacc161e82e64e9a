"""Hidden checks for "Verifying a Draft Tree".

Expected values are computed here by other routes than a row-by-row construction or a walk:
a node's ancestors and depth by climbing its parent pointers to the root, and the accepted path
as the set of nodes each of whose edges is its parent's chosen edge (the lowest-index child
holding the token the parent predicts), ordered by depth. A wrong answer is named by the grader,
by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_sequence, fail, values_shown

# --------------------------------------------------------------------------- independent expectations


def climb(parents: list[int], i: int) -> list[int]:
    """Node i and its ancestors, from i up to the root."""
    chain = [i]
    while parents[chain[-1]] != -1:
        chain.append(parents[chain[-1]])
    return chain


def expected_mask(parents: list[int]) -> np.ndarray:
    n = len(parents)
    mask = np.zeros((n, n), dtype=bool)
    for i in range(n):
        for j in climb(parents, i):
            mask[i, j] = True
    return mask


def expected_positions(parents: list[int], prefix_len: int) -> list[int]:
    return [prefix_len + len(climb(parents, i)) - 1 for i in range(len(parents))]


def expected_walk(parents: list[int], tokens: list[int], target_next: list[int]) -> tuple[list[int], list[int]]:
    """The accepted nodes are those whose every edge up to the root is the parent's chosen edge."""
    n = len(parents)
    chosen = [False] * n
    for v in range(1, n):
        c = parents[v]
        rivals = [u for u in range(1, n) if parents[u] == c and int(tokens[u]) == int(target_next[c])]
        chosen[v] = bool(rivals) and min(rivals) == v
    accepted = [v for v in range(n) if all(chosen[u] for u in climb(parents, v)[:-1])]
    accepted.sort(key=lambda v: len(climb(parents, v)))
    emitted = [int(tokens[v]) for v in accepted[1:]] + [int(target_next[accepted[-1]])]
    return accepted, emitted


# --------------------------------------------------------------------------- trees and tokens


def random_tree(rng: np.random.Generator, n: int, shape: str) -> list[int]:
    """Parents-first trees of several shapes."""
    if shape == "chain":
        return [-1, *list(range(n - 1))]
    if shape == "star":
        return [-1] + [0] * (n - 1)
    if shape == "bushy":  # many children per node, near the root
        return [-1] + [int(rng.integers(0, max(1, i // 3))) for i in range(1, n)]
    if shape == "deep":  # each node hangs from one of the last few
        return [-1] + [int(rng.integers(max(0, i - 3), i)) for i in range(1, n)]
    if shape == "levels":  # Medusa-like: every node of one level gets the same number of children
        parents, level = [-1], [0]
        while len(parents) < n:
            nxt = []
            for p in level:
                for _ in range(int(rng.integers(1, 4))):
                    if len(parents) < n:
                        nxt.append(len(parents))
                        parents.append(p)
            level = nxt
        return parents
    return [-1] + [int(rng.integers(0, i)) for i in range(1, n)]  # uniform random


SHAPES = ["random", "chain", "star", "bushy", "deep", "levels"]


def random_tokens(rng: np.random.Generator, parents: list[int], vocab: int, agree: float) -> tuple[list, list]:
    """Tokens from a small vocabulary (siblings often share one), and predictions that often match a child."""
    n = len(parents)
    tokens = [int(t) for t in rng.integers(0, vocab, size=n)]
    target_next = []
    for c in range(n):
        kids = [v for v in range(n) if parents[v] == c]
        if kids and rng.random() < agree:
            target_next.append(tokens[kids[int(rng.integers(0, len(kids)))]])
        else:
            target_next.append(int(rng.integers(0, vocab + 2)))
    return tokens, target_next


# --------------------------------------------------------------------------- talking to the solution


def tree_form(result: Any, what: str) -> tuple[Any, Any]:
    return expect_sequence(result, 2, what=f"tree_attention's return value ({what})", hint="form")


def expect_mask(got: Any, want: np.ndarray, what: str) -> None:
    expect_array(got, want, what=f"mask ({what})", dtype=bool, exact=True, hint="form")


def expect_positions(got: Any, want: list[int], what: str) -> None:
    if not isinstance(got, np.ndarray) or got.dtype.kind not in "iu":
        fail(f"positions ({what}) should be a numpy array of ints, got {describe(got)}", hint="form")
    expect_array(got, np.array(want, dtype=np.int64), what=f"positions ({what})", exact=True, hint="form")


def expect_ints(got: Any, want: list[int], what: str) -> None:
    """A list (a tuple is let through here: the form check asks for lists) of ints equal to ``want``."""
    ints = isinstance(got, (list, tuple)) and all(
        isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in got
    )
    if not ints:
        fail(f"{what} should be a list of ints, got {describe(got)}", hint="form")
    values = [int(x) for x in got]
    if values == want:
        return
    if values_shown():
        message = f"{what}: expected {want}, got {values}"
    elif len(values) != len(want):
        message = f"{what} has {len(values)} items where {len(want)} were expected"
    else:
        wrong = [i for i, (a, b) in enumerate(zip(values, want, strict=True)) if a != b]
        message = (
            f"{what} differs from the expected list: first at position {wrong[0]}; {len(wrong)} of {len(want)} differ"
        )
    fail(message, hint=None, expected=want, got=got)


def expect_walk(result: Any, parents: list[int], tokens: list, target_next: list, what: str) -> None:
    accepted, emitted = expect_sequence(result, 2, what=f"accept_path's return value ({what})", hint="form")
    want_accepted, want_emitted = expected_walk(parents, tokens, target_next)
    expect_ints(accepted, want_accepted, f"accepted_nodes ({what})")
    expect_ints(emitted, want_emitted, f"emitted ({what})")


def check_trees(student: Student, cases: list[tuple[list[int], int, str]], part: str) -> None:
    """tree_attention on every case in one crossing; compare the mask or the positions."""
    results = student.tree_attention.each([(parents, prefix_len) for parents, prefix_len, _ in cases])
    for (parents, prefix_len, what), result in zip(cases, results, strict=True):
        mask, positions = tree_form(result, what)
        if part == "mask":
            expect_mask(mask, expected_mask(parents), what)
        else:
            expect_positions(positions, expected_positions(parents, prefix_len), what)


def check_walks(student: Student, cases: list[tuple[list[int], list, list, str]]) -> None:
    results = student.accept_path.each([(p, t, tn) for p, t, tn, _ in cases])
    for (parents, tokens, target_next, what), result in zip(cases, results, strict=True):
        expect_walk(result, parents, tokens, target_next, what)


# --------------------------------------------------------------------------- the checks

WORKED_PARENTS = [-1, 0, 0, 1, 1, 2, 3]


@check("The worked example: the tree's mask and positions", public=True, points=2, hint="mask-ancestors")
def worked_example_tree(student: Student) -> None:
    mask, positions = tree_form(student.tree_attention(WORKED_PARENTS, 20), "worked example")
    expect_positions(positions, [20, 21, 21, 22, 22, 22, 23], "worked example")
    expect_mask(mask, expected_mask(WORKED_PARENTS), "worked example")


@check("The worked example: the accepted path and the emitted tokens", public=True, points=2, hint="walk")
def worked_example_walk(student: Student) -> None:
    tokens, target_next = [10, 11, 12, 13, 14, 15, 16], [12, 99, 15, 16, 0, 7, 5]
    calls = [(WORKED_PARENTS, tokens, target_next), ([-1, 0, 0], [5, 7, 7], [7, 1, 2])]
    results = student.accept_path.each(calls)
    for (parents, toks, nxt), result, what in zip(calls, results, ["worked example", "equal siblings"], strict=True):
        expect_walk(result, parents, toks, nxt, what)


@check("Both functions return the documented kinds of values", public=True, hint="form")
def return_forms(student: Student) -> None:
    parents = [-1, 0, 1, 0]
    result = student.tree_attention(parents, 3)
    if not isinstance(result, tuple) or len(result) != 2:
        fail(f"tree_attention should return a tuple (mask, positions), got {describe(result)}", hint="form")
    mask, positions = result
    if not isinstance(mask, np.ndarray) or mask.dtype != bool or mask.shape != (4, 4):
        fail(f"mask should be a numpy array of dtype bool and shape (4, 4), got {describe(mask)}", hint="form")
    if not isinstance(positions, np.ndarray) or positions.dtype.kind not in "iu" or positions.shape != (4,):
        fail(f"positions should be a numpy array of ints of shape (4,), got {describe(positions)}", hint="form")
    result = student.accept_path(parents, [1, 2, 3, 4], [2, 3, 9, 8])
    if not isinstance(result, tuple) or len(result) != 2:
        fail(f"accept_path should return a tuple (accepted_nodes, emitted), got {describe(result)}", hint="form")
    for name, value in zip(("accepted_nodes", "emitted"), result, strict=True):
        if not isinstance(value, list) or not all(
            isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in value
        ):
            fail(f"{name} should be a Python list of ints, got {describe(value)}", hint="form")


@check("The mask: each node sees itself and all its ancestors, on trees of every shape", hint="mask-ancestors")
def mask_random_trees(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k, n in enumerate([2, 3, 5, 8, 12, 17, 26, 40, 9, 14, 31, 6]):
        shape = SHAPES[k % len(SHAPES)]
        cases.append((random_tree(rng, n, shape), int(rng.integers(0, 50)), f"a {shape} tree of {n} nodes"))
    check_trees(student, cases, "mask")


@check("The positions: the prefix length plus each node's depth", hint="positions")
def positions_random_trees(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k, n in enumerate([2, 4, 7, 10, 15, 23, 35, 6, 12, 28]):
        shape = SHAPES[k % len(SHAPES)]
        prefix_len = int(rng.integers(1, 5000))
        cases.append((random_tree(rng, n, shape), prefix_len, f"a {shape} tree of {n} nodes"))
    cases.append((random_tree(rng, 11, "random"), 0, "a tree of 11 nodes and an empty prefix"))
    cases.append((random_tree(rng, 9, "bushy"), 2**40 + 7, "a tree of 9 nodes after a very long prefix"))
    check_trees(student, cases, "positions")


@check("A tree of the root alone", hint="walk")
def root_alone(student: Student) -> None:
    mask, positions = tree_form(student.tree_attention([-1], 12), "the root alone")
    expect_mask(mask, np.ones((1, 1), dtype=bool), "the root alone")
    expect_positions(positions, [12], "the root alone")
    expect_walk(student.accept_path([-1], [4], [17]), [-1], [4], [17], "the root alone")


@check("The walk on random trees, where many drafts match", hint="walk")
def walk_random_trees(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for k, n in enumerate([2, 3, 4, 6, 8, 10, 13, 16, 20, 25, 32, 40, 7, 11, 18, 27]):
        shape = SHAPES[k % len(SHAPES)]
        parents = random_tree(rng, n, shape)
        tokens, target_next = random_tokens(rng, parents, vocab=3 + k % 4, agree=0.8)
        cases.append((parents, tokens, target_next, f"a {shape} tree of {n} nodes"))
    check_walks(student, cases)


@check("Siblings holding the same token: the lowest index wins, even when another goes deeper", hint="lowest-index")
def walk_equal_siblings(student: Student, rng: np.random.Generator) -> None:
    cases = []
    # The root's children 1 and 2 both hold the predicted token; only node 2 has a matching child below.
    cases.append(([-1, 0, 0, 2, 3], [0, 7, 7, 8, 9], [7, 3, 8, 9, 4], "two equal children of the root"))
    # Three equal children, the deepest path under the middle one.
    cases.append(([-1, 0, 0, 0, 2, 4, 1], [0, 5, 5, 5, 6, 6, 1], [5, 6, 6, 2, 6, 3, 2], "three equal children"))
    for n in (9, 14, 22):
        parents = random_tree(rng, n, "bushy")
        tokens, target_next = random_tokens(rng, parents, vocab=2, agree=0.9)
        cases.append((parents, tokens, target_next, f"a bushy tree of {n} nodes with two distinct tokens"))
    check_walks(student, cases)


@check("Every draft accepted, and none accepted", hint="bonus")
def walk_all_or_nothing(student: Student) -> None:
    n = 8
    chain = [-1, *list(range(n - 1))]
    tokens = [30, 31, 32, 33, 34, 35, 36, 37]
    cases = [
        # The whole chain matches, and the bonus token equals the root's token.
        (chain, tokens, [*tokens[1:], 30], "a chain of 8 nodes, all accepted"),
        (chain, tokens, [31, 32, 33, 34, 35, 36, 37, 41], "a chain of 8 nodes, all accepted, a new bonus token"),
        (chain, tokens, [40, *tokens[2:], 41], "a chain of 8 nodes whose first draft is rejected"),
        ([-1, 0, 0, 0], [2, 3, 4, 5], [6, 4, 4, 4], "a star of 4 nodes, no child matching"),
        (
            [-1, 0, 1, 2, 0, 4, 5],
            [np.int64(t) for t in (1, 2, 3, 4, 5, 6, 7)],
            [np.int64(t) for t in (5, 3, 4, 9, 6, 7, 8)],
            "numpy integers: two chains, the second accepted to its end",
        ),
    ]
    check_walks(student, cases)


@check("The lists passed in are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    parents = random_tree(rng, 12, "random")
    tokens, target_next = random_tokens(rng, parents, vocab=3, agree=0.9)
    # The same lists for two calls in one crossing: a call that changes them changes the second answer.
    for n, result in enumerate(student.accept_path.each([(parents, tokens, target_next)] * 2), start=1):
        expect_walk(result, parents, tokens, target_next, f"call {n} of 2 with the same lists")
    check_trees(student, [(parents, 5, f"call {n} of 2 with the same list") for n in (1, 2)], "mask")
    check_trees(student, [(parents, 5, f"call {n} of 2 with the same list") for n in (1, 2)], "positions")
