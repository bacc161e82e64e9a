"""Checks for "Bytes Moved by Fused Kernels".

The expected traffic is computed here tensor by tensor instead of kernel by kernel: a tensor is
read once by every kernel that consumes it without producing it, and written once if it is an
output or some kernel other than its producer's consumes it. The statement's examples are also
worked out by hand. A wrong answer is named by the grader, by comparing it with the exercise's
mutants on the same calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_integer, expect_sequence, fail

Op = tuple[str, list[str]]
Case = tuple[list[Op], list[list[int]], dict[str, Any], list[str]]

# --------------------------------------------------------------------------- independent reference


def expected_traffic(
    ops: list[Op], groups: list[list[int]], nbytes: dict[str, Any], outputs: list[str]
) -> tuple[int, int]:
    """Per tensor: the kernels that read it from memory, and whether it is written."""
    kernel = {i: g for g, members in enumerate(groups) for i in members}
    made_in = {out: kernel[i] for i, (out, _) in enumerate(ops)}
    readers: dict[str, set[int]] = {}
    for i, (_, ins) in enumerate(ops):
        for name in ins:
            readers.setdefault(name, set()).add(kernel[i])
    reads = 0
    for name, kernels in readers.items():
        reads += int(nbytes[name]) * len(kernels - {made_in.get(name, -1)})
    writes = 0
    for name, g in made_in.items():
        if name in outputs or readers.get(name, set()) - {g}:
            writes += int(nbytes[name])
    return reads, writes


# --------------------------------------------------------------------------- the statement's graphs

MLP_OPS: list[Op] = [("h", ["x", "w"]), ("hb", ["h", "b"]), ("y", ["hb"])]
MLP_BYTES = {"x": 100, "w": 50, "h": 200, "b": 2, "hb": 200, "y": 200}
NORM_OPS: list[Op] = [("r", ["x", "res"]), ("mu", ["r"]), ("y", ["r", "mu", "g"])]
NORM_BYTES = {"x": 64, "res": 64, "r": 64, "mu": 1, "g": 8, "y": 64}
SQUARE_OPS: list[Op] = [("sq", ["x", "x"]), ("s", ["sq", "x"])]
SQUARE_BYTES = {"x": 10, "sq": 10, "s": 1}

# --------------------------------------------------------------------------- comparing answers


def compare(got: Any, want: tuple[int, int], what: str) -> None:
    reads, writes = expect_sequence(got, 2, what=f"the result ({what})", hint="form")
    for value, name in ((reads, "read_bytes"), (writes, "write_bytes")):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            fail(f"{name} ({what}) should be an int, got {describe(value)}", hint="form")
    expect_integer(reads, want[0], what=f"read_bytes ({what})")
    expect_integer(writes, want[1], what=f"write_bytes ({what})")


def run(student: Student, cases: list[tuple[Case, str]]) -> None:
    """All the cases in one crossing, each compared with its expected pair."""
    results = student.kernel_traffic.each([case for case, _ in cases])
    for (case, what), got in zip(cases, results, strict=True):
        compare(got, expected_traffic(*case), what)


def random_case(rng: np.random.Generator, n_ops: int, n_inputs: int, n_kernels: int) -> Case:
    """A random graph without dead values, cut at random into kernels listed in a random order."""
    inputs = [f"in{k}" for k in range(n_inputs)]
    ops: list[Op] = []
    for i in range(n_ops):
        pool = inputs + [out for out, _ in ops]
        # Recent results are likelier inputs, as in a chain of elementwise ops.
        weights = np.array([1.0] * n_inputs + [3.0] * i)
        picks = rng.choice(len(pool), size=int(rng.integers(1, 4)), p=weights / weights.sum())
        ops.append((f"t{i}", [pool[int(p)] for p in picks]))
    read = {name for _, ins in ops for name in ins}
    outputs = [out for out, _ in ops if out not in read or rng.random() < 0.25]
    owner = rng.integers(0, n_kernels, size=n_ops)
    groups = [[int(i) for i in rng.permutation(np.flatnonzero(owner == g))] for g in range(n_kernels)]
    groups = [members for members in groups if members]
    groups = [groups[int(k)] for k in rng.permutation(len(groups))]
    names = inputs + [out for out, _ in ops] + ["unused"]
    sizes = rng.integers(1, 10**6, size=len(names))
    nbytes = {name: int(size) for name, size in zip(names, sizes, strict=True)}
    return ops, groups, nbytes, [outputs[int(k)] for k in rng.permutation(len(outputs))]


# --------------------------------------------------------------------------- the checks


@check("The statement's linear layer, unfused, bias and GELU fused, all fused", public=True, points=2, hint="writes")
def worked_example(student: Student) -> None:
    cases = [
        ([[0], [1], [2]], (552, 600), "three kernels"),
        ([[0], [1, 2]], (352, 400), "bias and GELU fused"),
        ([[0, 1, 2]], (152, 200), "all fused"),
    ]
    results = student.kernel_traffic.each([(MLP_OPS, groups, MLP_BYTES, ["y"]) for groups, _, _ in cases])
    for (_, want, what), got in zip(cases, results, strict=True):
        compare(got, want, f"the linear layer, {what}")


@check("The statement's residual and norm, fused, with r an output too", public=True, hint="writes")
def residual_norm(student: Student) -> None:
    compare(student.kernel_traffic(NORM_OPS, [[0, 1, 2]], NORM_BYTES, ["r", "y"]), (136, 128),
            "residual and norm, fused")  # fmt: skip


@check("The statement's x·x, fused and split", public=True, hint="distinct")
def repeated_input(student: Student) -> None:
    cases = [([[0, 1]], (10, 1), "fused"), ([[0], [1]], (30, 11), "split")]
    results = student.kernel_traffic.each([(SQUARE_OPS, groups, SQUARE_BYTES, ["s"]) for groups, _, _ in cases])
    for (_, want, what), got in zip(cases, results, strict=True):
        compare(got, want, f"x·x, {what}")


@check("The result is a tuple of two ints, also for numpy sizes", hint="form")
def result_form(student: Student) -> None:
    sizes = {name: np.int64(size) for name, size in MLP_BYTES.items()}
    got = student.kernel_traffic(MLP_OPS, [[1, 2], [0]], sizes, ["y"])
    if not isinstance(got, (tuple, list)):
        fail(f"kernel_traffic should return a tuple (read_bytes, write_bytes), got {describe(got)}", hint="form")
    compare(got, expected_traffic(MLP_OPS, [[1, 2], [0]], sizes, ["y"]), "numpy sizes")


@check("A tensor used several times in one kernel is read once", hint="distinct")
def reads_once_per_kernel(student: Student) -> None:
    many_uses = [("a", ["x", "x", "x"]), ("b", ["a", "x", "w"]), ("c", ["b", "w", "x", "a"])]
    sizes = {"x": 1000, "w": 300, "a": 70, "b": 11, "c": 5}
    cases = [
        ((many_uses, [[0, 1, 2]], sizes, ["c"]), "one kernel, x used six times"),
        ((many_uses, [[2, 0], [1]], sizes, ["c"]), "two kernels, each using x several times"),
        ((many_uses, [[0], [1], [2]], sizes, ["c"]), "one op per kernel"),
        ((SQUARE_OPS, [[1], [0]], SQUARE_BYTES, ["s"]), "x·x with its kernels listed last first"),
    ]
    run(student, cases)


@check("A kernel does not read what it produces", hint="own-products")
def own_products(student: Student) -> None:
    chain = [("a", ["x"]), ("b", ["a"]), ("c", ["b"]), ("d", ["c", "a"])]
    sizes = {"x": 8, "a": 1000, "b": 2000, "c": 4000, "d": 3}
    cases = [
        ((chain, [[0, 1, 2, 3]], sizes, ["d"]), "a chain fused whole"),
        ((chain, [[3, 1], [2, 0]], sizes, ["d"]), "a chain cut into two interleaved kernels"),
        ((chain, [[0, 1], [2, 3]], sizes, ["d", "b"]), "a chain cut in two, an intermediate an output"),
    ]
    run(student, cases)


@check("What a fused kernel writes: outputs and results other kernels read, nothing else", hint="writes")
def fused_writes(student: Student) -> None:
    # A block whose intermediates go every way: kept on chip, read by another kernel, a graph output.
    ops = [("p", ["x", "w"]), ("q", ["p"]), ("r", ["q", "p"]), ("s", ["r", "x"]), ("t", ["s", "q"]), ("u", ["t"])]
    sizes = {"x": 17, "w": 29, "p": 101, "q": 211, "r": 409, "s": 809, "t": 1601, "u": 3203}
    cases = [
        ((ops, [[0, 1, 2, 3, 4, 5]], sizes, ["u"]), "all fused, one output"),
        ((ops, [[0, 1, 2, 3, 4, 5]], sizes, ["u", "q", "r"]), "all fused, intermediates also outputs"),
        ((ops, [[0, 1, 2], [3, 4, 5]], sizes, ["u"]), "two kernels, one intermediate crossing"),
        ((ops, [[3, 4, 5], [0, 1, 2]], sizes, ["u", "p"]), "two kernels listed last first, an output used inside"),
        ((ops, [[0, 2, 4], [1, 3, 5]], sizes, ["u"]), "two interleaved kernels"),
        ((ops, [[0], [1, 2, 3], [4, 5]], sizes, ["u", "s"]), "three kernels"),
        ((NORM_OPS, [[0], [1], [2]], NORM_BYTES, ["r", "y"]), "residual and norm, unfused"),
        ((NORM_OPS, [[0, 2], [1]], NORM_BYTES, ["y", "r"]), "residual and norm, the mean apart"),
        ((NORM_OPS, [[0, 1, 2]], NORM_BYTES, ["y"]), "residual and norm, fused, r not an output"),
    ]
    run(student, cases)


@check("A tensor read by several kernels is read by each of them", hint="per-kernel")
def read_by_each_kernel(student: Student) -> None:
    fan_out = [("a", ["x"]), ("b", ["x"]), ("c", ["x", "a"]), ("d", ["b", "c", "x"])]
    sizes = {"x": 5000, "a": 40, "b": 300, "c": 2, "d": 7}
    cases = [
        ((fan_out, [[0], [1], [2], [3]], sizes, ["d"]), "x read by four kernels"),
        ((fan_out, [[0, 2], [1, 3]], sizes, ["d"]), "x read by two kernels"),
        ((fan_out, [[3, 2, 1, 0]], sizes, ["d"]), "x read by one kernel"),
        ((fan_out, [[1], [0, 2, 3]], sizes, ["d", "a"]), "an output read by its own kernel, x by two"),
    ]
    run(student, cases)


@check("Graph inputs only: single ops, extra names in nbytes", hint="writes")
def small_graphs(student: Student) -> None:
    sizes = {"x": 3, "y": 4, "z": 123456789012, "unused": 99}
    cases = [
        (([("z", ["x"])], [[0]], sizes, ["z"]), "one op"),
        (([("z", ["x", "y", "x"])], [[0]], sizes, ["z"]), "one op with a repeated input"),
        (([("y", ["x"]), ("z", ["x"])], [[0], [1]], sizes, ["z", "y"]), "two independent ops apart"),
        (([("y", ["x"]), ("z", ["x"])], [[1, 0]], sizes, ["y", "z"]), "two independent ops fused"),
    ]
    run(student, cases)


@check("Random graphs cut into random kernels", hint="writes")
def random_graphs(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n in range(1, 41):
        n_ops = int(rng.integers(1, 13))
        case = random_case(rng, n_ops, int(rng.integers(1, 5)), int(rng.integers(1, n_ops + 1)))
        cases.append((case, f"random graph {n} of 40"))
    run(student, cases)


@check("ops, groups, nbytes and outputs are left unchanged", hint="no-mutation")
def input_unchanged(student: Student) -> None:
    ops = [("p", ["x", "w"]), ("q", ["p", "p"]), ("r", ["q", "x"]), ("s", ["r", "p"])]
    sizes = {"x": 10, "w": 20, "p": 300, "q": 4000, "r": 50000, "s": 6}
    outputs = ["s"]
    split = [[0], [1, 2], [3]]
    # The same objects in every call of one crossing: a call that changes one changes what the next ones see.
    cases = [
        ((ops, split, sizes, outputs), "first call, three kernels"),
        ((ops, [[3, 2, 1, 0]], sizes, outputs), "second call, all fused, on the same objects"),
        ((ops, split, sizes, outputs), "third call, three kernels again, on the same objects"),
    ]
    run(student, cases)
