"""Hidden checks for "Reverse-Mode Autodiff on a Tape".

Expected values come from forward mode, not from a backward walk: every node carries its value and
its derivatives with respect to all the inputs, computed from its operands' as the tape is read
from the first entry to the last (tanh's derivative written as 1/cosh²). Random tapes are built
so that every node stays within ±50, every divisor is at least 0.3 in magnitude, every log's
argument is positive, and every relu sees either exactly 0 or a value far from it. A wrong answer
is named by the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from grader.checks import Student, check, describe, expect_array, expect_float, expect_sequence, fail

Tape = list[tuple[str, int, int]]
BINARY = ("add", "sub", "mul", "div")
UNARY = ("exp", "log", "tanh", "relu")

# --------------------------------------------------------------------------- forward mode


def forward_mode(tape: Tape, inputs: list[float]) -> tuple[float, np.ndarray]:
    """The output's value and its derivatives, each node carrying (value, d value / d inputs)."""
    n = len(inputs)
    nodes = [(float(x), np.eye(n)[i]) for i, x in enumerate(inputs)]
    for op, a, b in tape:
        x, dx = nodes[a]
        if op in BINARY:
            y, dy = nodes[b]
        if op == "add":
            nodes.append((x + y, dx + dy))
        elif op == "sub":
            nodes.append((x - y, dx - dy))
        elif op == "mul":
            nodes.append((x * y, y * dx + x * dy))
        elif op == "div":
            nodes.append((x / y, dx / y - (x / (y * y)) * dy))
        elif op == "exp":
            nodes.append((math.exp(x), math.exp(x) * dx))
        elif op == "log":
            nodes.append((math.log(x), dx / x))
        elif op == "tanh":
            nodes.append((math.tanh(x), dx / math.cosh(x) ** 2))
        elif op == "relu":
            nodes.append((x, dx) if x > 0 else (0.0, np.zeros(n)))
        else:
            raise ValueError(op)
    return nodes[-1]


def node_value(op: str, x: float, y: float) -> float | None:
    """The value of a new node, or None when it would leave the range the statement promises."""
    if op == "div" and abs(y) < 0.3:
        return None
    if op == "log" and x <= 0:
        return None
    if op == "exp" and x > 3.9:
        return None
    if op == "relu" and x != 0 and abs(x) < 1e-6:
        return None  # too close to the kink for floating point to decide which side
    value = {
        "add": lambda: x + y,
        "sub": lambda: x - y,
        "mul": lambda: x * y,
        "div": lambda: x / y,
        "exp": lambda: math.exp(x),
        "log": lambda: math.log(x),
        "tanh": lambda: math.tanh(x),
        "relu": lambda: max(x, 0.0),
    }[op]()
    return value if abs(value) <= 50 else None


def random_tape(rng: np.random.Generator, n: int, length: int, ops: tuple[str, ...] = BINARY + UNARY) -> tuple:
    """A random tape of ``length`` entries on n random inputs, mostly built on recent nodes."""
    inputs = [float(v) for v in rng.uniform(-2.0, 2.0, size=n)]
    values = list(inputs)
    tape: Tape = []
    while len(tape) < length:
        op = str(rng.choice(ops))

        def pick() -> int:
            recent = len(values) - 1 - int(rng.integers(min(4, len(values))))
            return recent if rng.random() < 0.6 else int(rng.integers(len(values)))

        a = pick()
        b = pick() if op in BINARY else -1
        value = node_value(op, values[a], values[b] if op in BINARY else 0.0)
        if value is None:
            continue
        tape.append((op, a, b))
        values.append(value)
    return tape, inputs


# --------------------------------------------------------------------------- comparing


def expect_answer(got: Any, tape: Tape, inputs: list[float], what: str) -> None:
    value, grads = forward_mode(tape, inputs)
    answer = expect_sequence(got, 2, what=f"the answer for {what}", hint="answer-form")
    n = len(inputs)
    if not isinstance(answer[1], np.ndarray) or answer[1].shape != (n,) or answer[1].dtype != np.float64:
        fail(f"the gradients for {what} should be a float64 array of shape ({n},), one per input, "
             f"got {describe(answer[1])}", hint="answer-form", expected=grads, got=answer[1])  # fmt: skip
    expect_float(answer[0], value, what=f"the value for {what}", rtol=1e-9, atol=1e-9 * max(1.0, abs(value)),
                 hint="answer-form")  # fmt: skip
    atol = 1e-9 * max(1.0, float(np.max(np.abs(grads))))
    expect_array(answer[1], grads, what=f"the gradients for {what}", rtol=1e-9, atol=atol, hint="answer-form")


def run(student: Student, cases: list[tuple[Tape, list[float], str]]) -> None:
    """Every case in one crossing."""
    results = student.tape_grad.each([(tape, inputs) for tape, inputs, _ in cases])
    for (tape, inputs, label), got in zip(cases, results, strict=True):
        expect_answer(got, tape, inputs, label)


# --------------------------------------------------------------------------- the checks


@check("The worked examples from the statement", public=True, points=2, hint="accumulate")
def worked_example(student: Student) -> None:
    cases = [
        ([("mul", 0, 1), ("add", 2, 0)], [2.0, 3.0], "x0·x1 + x0 on [2, 3]"),
        ([("mul", 0, 0)], [3.0], "x·x on [3]"),
        ([("sub", 0, 0), ("relu", 1, -1)], [2.0], "relu(x − x) on [2]"),
    ]
    run(student, cases)


@check("Each operation on its own", hint="local-derivatives")
def each_operation(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for op in BINARY:
        x, y = rng.uniform(0.5, 2.0), rng.uniform(-2.0, -0.5)
        cases.append(([(op, 0, 1)], [x, y], f"one {op} of two inputs"))
        cases.append(([(op, 1, 0)], [x, y], f"one {op}, operands the other way round"))
    for op, x in (("exp", 1.3), ("log", 2.7), ("tanh", 0.8), ("tanh", -1.6), ("relu", 1.4), ("relu", -0.7)):
        cases.append(([(op, 0, -1)], [x + rng.uniform(-0.1, 0.1)], f"one {op}"))
    cases.append(([("exp", 1, -1)], [rng.uniform(-1, 1), rng.uniform(-1, 1)], "exp of the second of two inputs"))
    run(student, cases)


@check("A node used by several entries gets the sum of their gradients", hint="accumulate")
def fan_out(student: Student, rng: np.random.Generator) -> None:
    x, y, z = (float(v) for v in rng.uniform(0.5, 1.5, size=3))
    cases = [
        # x feeds three entries.
        ([("mul", 0, 1), ("exp", 0, -1), ("add", 2, 3), ("sub", 4, 0)], [x, y], "an input used three times"),
        # an inner node feeds two entries.
        ([("mul", 0, 1), ("tanh", 2, -1), ("mul", 2, 3), ("add", 4, 2)], [x, y], "an inner node used three times"),
        # a diamond: two paths from z to the output.
        ([("log", 2, -1), ("exp", 2, -1), ("div", 3, 4), ("mul", 5, 0), ("add", 6, 1)], [x, y, z], "a diamond"),
        # a long chain where every step also reuses the first input.
        ([("mul", 0, 1)] + [("add", k, 0) for k in range(2, 8)], [x, y], "every entry adds the same input"),
    ]
    run(student, cases)


@check("Both operands of one entry are the same node", hint="same-node")
def same_operands(student: Student, rng: np.random.Generator) -> None:
    x, y = (float(v) for v in rng.uniform(0.6, 1.8, size=2))
    cases = [
        ([("add", 0, 0)], [x], "x + x"),
        ([("sub", 0, 0), ("add", 1, 0)], [x], "(x − x) + x"),
        ([("div", 0, 0), ("mul", 1, 0)], [x], "(x / x)·x"),
        ([("mul", 0, 1), ("mul", 2, 2)], [x, y], "(x·y)·(x·y)"),
        ([("mul", 0, 0), ("mul", 0, 1), ("add", 2, 3)], [x, y], "x·x + x·y"),
        ([("tanh", 0, -1), ("mul", 1, 1), ("sub", 2, 0)], [x], "tanh(x)² − x"),
    ]
    run(student, cases)


@check("The gradient flows back through many levels, in the right order", hint="order")
def deep_chains(student: Student, rng: np.random.Generator) -> None:
    x = float(rng.uniform(0.3, 0.6))
    chain: Tape = [("tanh", 0, -1)] + [("tanh", k, -1) for k in range(1, 12)]
    mixed: Tape = [("exp", 0, -1), ("mul", 1, 0), ("log", 2, -1), ("add", 3, 1), ("div", 4, 2), ("sub", 5, 0)]
    cases = [
        (chain, [x], "twelve nested tanh"),
        (mixed, [x], "six entries, each using earlier ones"),
        ([("mul", 0, 1), ("mul", 2, 1), ("mul", 3, 1), ("add", 4, 2)], [x, 1.5], "a product chain"),
    ]
    run(student, cases)


@check("relu at exactly 0 passes no gradient; relu's two sides", hint="relu")
def relu_kink(student: Student, rng: np.random.Generator) -> None:
    x, y = float(rng.uniform(0.5, 1.5)), float(rng.uniform(0.5, 1.5))
    cases = [
        ([("sub", 0, 0), ("relu", 1, -1), ("add", 2, 0)], [x], "relu(x − x) + x"),
        ([("sub", 0, 1), ("relu", 2, -1)], [x, x], "relu(x − y) where x equals y"),
        ([("mul", 0, 1), ("relu", 2, -1), ("mul", 3, 0)], [x, 0.0], "relu(x·0)·x"),
        ([("sub", 0, 1), ("relu", 2, -1)], [x + 0.5, x], "relu of a small positive value"),
        ([("sub", 0, 1), ("relu", 2, -1)], [x - 0.3, x], "relu of a small negative value"),
        ([("mul", 0, 1), ("relu", 2, -1)], [x, -y], "relu of a negative product"),
    ]
    run(student, cases)


@check("Inputs and nodes that do not reach the output get 0", hint="unreached")
def unreached(student: Student, rng: np.random.Generator) -> None:
    x, y, z = (float(v) for v in rng.uniform(0.5, 1.5, size=3))
    cases = [
        ([("mul", 0, 1), ("exp", 2, -1)], [x, y, z], "a third input never used"),
        ([("mul", 0, 1), ("exp", 2, -1), ("tanh", 2, -1)], [x, y], "a branch that is never used"),
        ([("exp", 0, -1), ("mul", 2, 1), ("log", 1, -1)], [x, y], "an output that uses one input only"),
        ([("add", 1, 1)], [x, y, z], "one of three inputs used"),
    ]
    run(student, cases)


@check("Random tapes of many sizes", hint="order")
def random_tapes(student: Student, rng: np.random.Generator) -> None:
    cases = []
    for n, length in ((1, 5), (2, 8), (3, 20), (4, 40), (5, 60), (2, 100), (6, 300)):
        tape, inputs = random_tape(rng, n, length)
        cases.append((tape, inputs, f"a random tape of {length} entries on {n} inputs"))
    run(student, cases)


@check("The tape and the inputs are left unchanged", hint="no-mutation")
def inputs_unchanged(student: Student, rng: np.random.Generator) -> None:
    tape, inputs = random_tape(rng, 3, 15)
    other = [float(v) for v in rng.uniform(0.5, 1.5, size=3)]
    small: Tape = [("mul", 0, 1), ("add", 3, 2)]
    # One tape and one list of inputs for several calls in one crossing: a call that changes them
    # changes what the later calls see.
    calls = [(tape, inputs), (tape, inputs), (small, inputs), (small, other), (tape, inputs)]
    labels = ["a random tape, call 1 of 3", "the same tape, call 2 of 3", "a second tape on the same inputs",
              "the second tape on other inputs", "the first tape, call 3 of 3"]  # fmt: skip
    for (t, x), label, got in zip(calls, labels, student.tape_grad.each(calls), strict=True):
        expect_answer(got, t, x, label)
