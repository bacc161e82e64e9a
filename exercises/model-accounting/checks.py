"""Hidden checks for "Counting Parameters and FLOPs".

Expected values come from a different route than a formula per term: the checks list every weight
tensor of the model with its shape and every matrix product of the forward pass with its (m, k, n),
then add up the sizes (math.prod) and the 2·m·k·n, all in Python ints. A wrong answer is named by
the grader, by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

from math import prod

from grader.checks import Student, check, expect_integer

# A model's shape: (vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff).
Shape = tuple[int, int, int, int, int, int]


# --------------------------------------------------------------------------- independent reference


def weight_tensors(shape: Shape, tied: bool) -> list[tuple[int, tuple[int, ...]]]:
    """Every weight tensor as (how many of it, its shape)."""
    vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff = shape
    dh = d_model // n_heads
    tensors = [
        (1, (vocab, d_model)),  # token embedding
        (n_layers, (d_model,)),  # RMSNorm before attention
        (n_layers, (d_model, n_heads * dh)),  # W_q
        (n_layers, (d_model, n_kv_heads * dh)),  # W_k
        (n_layers, (d_model, n_kv_heads * dh)),  # W_v
        (n_layers, (n_heads * dh, d_model)),  # W_o
        (n_layers, (d_model,)),  # RMSNorm before the MLP
        (n_layers, (d_model, d_ff)),  # W_gate
        (n_layers, (d_model, d_ff)),  # W_up
        (n_layers, (d_ff, d_model)),  # W_down
        (1, (d_model,)),  # final RMSNorm
    ]
    if not tied:
        tensors.append((1, (d_model, vocab)))  # LM head
    return tensors


def expected_params(shape: Shape, tied: bool) -> int:
    return sum(count * prod(dims) for count, dims in weight_tensors(shape, tied))


def matmuls(shape: Shape, T: int) -> list[tuple[int, tuple[int, int, int]]]:
    """Every matrix product of one forward pass as (how many of it, (m, k, n))."""
    vocab, d_model, n_layers, n_heads, n_kv_heads, d_ff = shape
    dh = d_model // n_heads
    return [
        (n_layers, (T, d_model, n_heads * dh)),  # Q = x W_q
        (n_layers, (T, d_model, n_kv_heads * dh)),  # K = x W_k
        (n_layers, (T, d_model, n_kv_heads * dh)),  # V = x W_v
        (n_layers * n_heads, (T, dh, T)),  # Q_h K_h^T
        (n_layers * n_heads, (T, T, dh)),  # P_h V_h
        (n_layers, (T, n_heads * dh, d_model)),  # out W_o
        (n_layers, (T, d_model, d_ff)),  # gate
        (n_layers, (T, d_model, d_ff)),  # up
        (n_layers, (T, d_ff, d_model)),  # down
        (1, (T, d_model, vocab)),  # LM head
    ]


def expected_flops(shape: Shape, T: int) -> int:
    return sum(count * 2 * m * k * n for count, (m, k, n) in matmuls(shape, T))


def compare_params(student: Student, cases: list[tuple[Shape, bool, str]], hint: str | None = None) -> None:
    results = student.param_count.each([(*shape, tied) for shape, tied, _ in cases])
    for n, ((shape, tied, label), got) in enumerate(zip(cases, results, strict=True), start=1):
        what = f"param_count, case {n} of {len(cases)} ({label}, {'tied' if tied else 'untied'})"
        expect_integer(got, expected_params(shape, tied), what=what, hint="integers")


def compare_flops(student: Student, cases: list[tuple[Shape, int, str]]) -> None:
    results = student.forward_flops.each([(*shape, T) for shape, T, _ in cases])
    for n, ((shape, T, label), got) in enumerate(zip(cases, results, strict=True), start=1):
        expect_integer(got, expected_flops(shape, T), what=f"forward_flops, case {n} of {len(cases)} ({label})",
                       hint="integers")  # fmt: skip


# --------------------------------------------------------------------------- the cases

EXAMPLE: Shape = (10, 8, 2, 2, 1, 16)

SMALL: list[tuple[Shape, str]] = [
    ((50, 12, 3, 4, 2, 20), "grouped-query attention, 2 heads per key/value head"),
    ((97, 30, 5, 6, 3, 44), "grouped-query attention, odd sizes"),
    ((1000, 64, 1, 8, 8, 100), "one layer, one key/value head per head"),
    ((7, 6, 4, 3, 1, 10), "one key/value head shared by every head"),
    ((11, 5, 3, 5, 5, 7), "head size 1"),
    ((3, 9, 7, 1, 1, 13), "a single head"),
]

# Shapes of well-known models (their published sizes follow from them).
KNOWN: list[tuple[Shape, bool, str]] = [
    ((32000, 4096, 32, 32, 32, 11008), False, "a Llama-2-7B-shaped model"),
    ((128256, 4096, 32, 32, 8, 14336), False, "a Llama-3-8B-shaped model"),
    ((128256, 2048, 16, 32, 8, 8192), True, "a Llama-3.2-1B-shaped model"),
]

# Counts far beyond 2**63 (numpy's int64 wraps around) that floats cannot hold exactly either.
HUGE: list[tuple[Shape, int, str]] = [
    ((1_000_003, 98_016, 1_000_000_007, 96, 8, 393_217), 100_003, "a billion layers"),
    ((10**12 + 39, 131_968, 100_000_007, 128, 16, 262_147), 65_537, "a trillion-token vocabulary"),
]


# --------------------------------------------------------------------------- the checks


@check("The worked example from the statement", public=True, points=2)
def worked_example(student: Student) -> None:
    untied, tied = student.param_count.each([(*EXAMPLE, False), (*EXAMPLE, True)])
    expect_integer(untied, expected_params(EXAMPLE, False), what="param_count, untied", hint="integers")
    expect_integer(tied, expected_params(EXAMPLE, True), what="param_count, tied", hint="integers")
    flops = student.forward_flops(*EXAMPLE, 5)
    expect_integer(flops, expected_flops(EXAMPLE, 5), what="forward_flops over 5 tokens", hint="integers")


@check("param_count for small models, untied and tied", hint="components")
def params_small(student: Student) -> None:
    compare_params(student, [(shape, tied, label) for shape, label in SMALL for tied in (False, True)])


@check("param_count with grouped-query attention: fewer key/value heads than heads", hint="gqa")
def params_grouped_query(student: Student) -> None:
    base = (101, 48, 3, 12, 12, 72)
    cases = [((*base[:4], kv, base[5]), tied, f"{12 // kv} heads per key/value head") for kv, tied in
             ((12, False), (6, False), (4, True), (3, False), (2, True), (1, False))]  # fmt: skip
    compare_params(student, cases)


@check("param_count for the shapes of well-known models", hint="components")
def params_known_models(student: Student) -> None:
    compare_params(student, KNOWN)


@check("forward_flops for small models and many sequence lengths", hint="matmul-flops")
def flops_small(student: Student) -> None:
    cases = [(shape, T, label) for (shape, label), T in zip(SMALL, (7, 1, 33, 2, 12, 5), strict=True)]
    compare_flops(student, cases)


@check("forward_flops: the attention grid grows with the square of the sequence length", hint="attention-flops")
def flops_sequence_lengths(student: Student) -> None:
    shape = (64, 24, 2, 6, 2, 40)
    lengths = (1, 2, 3, 10, 129, 1000)
    compare_flops(student, [(shape, T, f"sequence length {n} of {len(lengths)}, shortest first")
                            for n, T in enumerate(lengths, start=1)])  # fmt: skip


@check("forward_flops for the shapes of well-known models", hint="matmul-flops")
def flops_known_models(student: Student) -> None:
    compare_flops(student, [(shape, T, f"{label}, its full context") for (shape, _, label), T in
                            zip(KNOWN, (4096, 8192, 131072), strict=True)])  # fmt: skip


@check("Exact counts beyond 2^63", hint="integers")
def exact_huge(student: Student) -> None:
    compare_params(student, [(shape, tied, label) for shape, _, label in HUGE for tied in (False, True)])
    compare_flops(student, HUGE)
