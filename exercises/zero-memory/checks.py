"""Checks for "ZeRO: Bytes per GPU".

The expected values are computed here by another route than a solution's: rank 0's bytes item by
item (weights, gradients, optimizer state), each either all Ψ elements or rank 0's shard, with the
shard counted as the array_split layout deals it out (Ψ // N, one more when N does not divide Ψ);
max_params by a bounded binary search over Ψ on those bytes. A wrong answer is named by the grader,
by comparing it with the exercise's mutants on the same calls.
"""

from __future__ import annotations

import numpy as np

from grader.checks import Student, check, expect_integer

# --------------------------------------------------------------------------- independent reference


def rank0_shard(n_params: int, n_gpus: int) -> int:
    """Rank 0's elements in the array_split layout: the first Ψ mod N parts hold one more than Ψ // N."""
    whole, rest = divmod(n_params, n_gpus)
    return whole + (1 if rest > 0 else 0)


def expected_bytes(n_params: int, n_gpus: int, stage: int) -> int:
    """Weights (2 bytes), gradients (2) and optimizer state (12), each whole or rank 0's shard."""
    shard = rank0_shard(n_params, n_gpus)
    weights = 2 * (shard if stage >= 3 else n_params)
    grads = 2 * (shard if stage >= 2 else n_params)
    optimizer = 12 * (shard if stage >= 1 else n_params)
    return weights + grads + optimizer


def expected_max_params(budget: int, n_gpus: int, stage: int) -> int:
    """Binary search: lo always fits, hi never does (16 bytes per element of a shard exceed any budget)."""
    lo, hi = 0, n_gpus * (budget + 1)
    for _ in range(200):
        if hi - lo <= 1:
            break
        mid = (lo + hi) // 2
        if expected_bytes(mid, n_gpus, stage) <= budget:
            lo = mid
        else:
            hi = mid
    assert hi - lo == 1
    return lo


# --------------------------------------------------------------------------- comparing answers


def run_bytes(student: Student, cases: list[tuple[tuple[int, int, int], str]]) -> None:
    results = student.zero_bytes_per_gpu.each([args for args, _ in cases])
    for (args, label), got in zip(cases, results, strict=True):
        expect_integer(got, expected_bytes(*args), what=f"rank 0's bytes ({label})", hint="exact-ints")


def run_max(student: Student, cases: list[tuple[tuple[int, int, int], str]]) -> None:
    results = student.max_params.each([args for args, _ in cases])
    for (args, label), got in zip(cases, results, strict=True):
        expect_integer(got, expected_max_params(*args), what=f"max_params ({label})", hint="exact-ints")


# --------------------------------------------------------------------------- the checks

PAPER = 7_500_000_000


@check("The worked examples from the statement", public=True, points=2, hint="stages")
def worked_example(student: Student) -> None:
    paper = student.zero_bytes_per_gpu.each([(PAPER, 64, stage) for stage in range(4)])
    for stage, got, want in zip(range(4), paper, [120_000_000_000, 31_406_250_000, 16_640_625_000, 1_875_000_000],
                                strict=True):  # fmt: skip
        expect_integer(got, want, what=f"rank 0's bytes for 7.5·10⁹ parameters on 64 GPUs, stage {stage}")
    small = student.zero_bytes_per_gpu.each([(10, 4, stage) for stage in range(4)])
    for stage, got, want in zip(range(4), small, [160, 76, 62, 48], strict=True):
        expect_integer(got, want, what=f"rank 0's bytes for 10 parameters on 4 GPUs, stage {stage}")
    expect_integer(student.max_params(100, 4, 1), 13, what="the largest model in 100 bytes on 4 GPUs at stage 1")


@check("Every stage, for parameter counts that 1 to 64 GPUs do and do not divide", hint="stages")
def stages(student: Student) -> None:
    sizes = [(1, 1), (12, 4), (13, 4), (15, 4), (100, 7), (3, 8), (64, 64), (65, 64), (4097, 64), (999, 1), (1000, 3),
             (2, 5)]  # fmt: skip
    cases = [((n_params, n_gpus, stage), f"model {k} of {len(sizes)}, stage {stage}")
             for k, (n_params, n_gpus) in enumerate(sizes, start=1) for stage in range(4)]  # fmt: skip
    run_bytes(student, cases)


@check("Rank 0 holds the larger shard of an uneven split", hint="shard-size")
def uneven_shards(student: Student) -> None:
    sizes = [(5, 4), (9, 8), (17, 16), (1, 3), (7, 2), (4095, 4096), (4097, 4096), (10**6 + 1, 1000)]
    cases = [((n_params, n_gpus, stage), f"uneven split {k} of {len(sizes)}, stage {stage}")
             for k, (n_params, n_gpus) in enumerate(sizes, start=1) for stage in (1, 2, 3)]  # fmt: skip
    run_bytes(student, cases)


@check("No parameters, and fewer parameters than GPUs", hint="shard-size")
def tiny_models(student: Student) -> None:
    cases = [((0, n_gpus, stage), f"no parameters, {where}, stage {stage}")
             for n_gpus, where in ((1, "one GPU"), (8, "a few GPUs")) for stage in range(4)]  # fmt: skip
    cases += [((n_params, 4096, stage), f"{where} on thousands of GPUs, stage {stage}")
              for n_params, where in ((1, "one parameter"), (100, "fewer parameters than GPUs"),
                                      (4096, "one parameter per GPU"))
              for stage in range(4)]  # fmt: skip
    run_bytes(student, cases)


@check("Exact integers for parameter counts beyond 2^53", hint="exact-ints")
def huge_models(student: Student) -> None:
    sizes = [(2**53 + 1, 1, "just past 2^53 parameters, one GPU"),
             (2**53 + 1, 2, "just past 2^53 parameters, two GPUs"),
             (2**53 + 3, 4, "just past 2^53 parameters, four GPUs"),
             (10**16, 4096, "the most parameters on the most GPUs"),
             (10**16 - 1, 3, "nearly the most parameters on three GPUs"),
             (9_007_199_254_740_993 * 7 // 8, 1000, "below 2^53 parameters on a thousand GPUs")]  # fmt: skip
    cases = [((n_params, n_gpus, stage), f"{label}, stage {stage}") for n_params, n_gpus, label in sizes
             for stage in range(4)]  # fmt: skip
    run_bytes(student, cases)


@check("max_params: budgets at and around the edge of a fit", hint="max-params")
def budget_edges(student: Student) -> None:
    cases = []
    sizes = [(13, 4), (10, 4), (1, 1), (7, 3), (64, 64), (65, 64), (1000, 7), (5, 8)]
    for k, (n_params, n_gpus) in enumerate(sizes, start=1):
        for stage in range(4):
            exact = expected_bytes(n_params, n_gpus, stage)
            for budget, where in ((exact, "a budget that fits a model exactly"),
                                  (exact - 1, "one byte short of a model"),
                                  (exact + 1, "one byte more than a model")):  # fmt: skip
                cases.append(((budget, n_gpus, stage), f"{where}, case {k} of {len(sizes)}, stage {stage}"))
    cases += [((0, 4, stage), f"no memory, stage {stage}") for stage in range(4)]
    cases += [((15, 1, 0), "a budget below one parameter, stage 0"), ((15, 4, 3), "a budget below one shard, stage 3"),
              ((16, 4, 3), "one element per shard, stage 3")]  # fmt: skip
    run_max(student, cases)


@check("max_params: the answer fits, and one more parameter does not", hint="max-params")
def staircase(student: Student) -> None:
    # Budgets where ignoring the rounding up of the shard gives a model that does not fit.
    budgets = [(100, 4), (1000, 64), (12345, 16), (10**6 + 7, 1000), (77, 5), (50, 3)]
    cases = [((budget, n_gpus, stage), f"budget {k} of {len(budgets)}, stage {stage}")
             for k, (budget, n_gpus) in enumerate(budgets, start=1) for stage in (1, 2, 3)]  # fmt: skip
    run_max(student, cases)


@check("max_params: exact for budgets up to 10^18 and answers beyond 2^53", hint="exact-ints")
def huge_budgets(student: Student) -> None:
    budgets = [(10**18, 4096, "the largest budget on the most GPUs"),
               (10**18 - 1, 4095, "nearly the largest budget on thousands of GPUs"),
               (80 * 10**9, 1024, "a GPU's memory on a thousand GPUs"),
               (16 * (2**53 + 1), 1, "exactly the bytes of just past 2^53 parameters, one GPU"),
               (16 * (2**53 + 1) - 1, 1, "one byte short of just past 2^53 parameters, one GPU"),
               (10**18 - 3, 3, "nearly the largest budget on three GPUs")]  # fmt: skip
    cases = [((budget, n_gpus, stage), f"{label}, stage {stage}") for budget, n_gpus, label in budgets
             for stage in range(4)]  # fmt: skip
    run_max(student, cases)


@check("Random models and budgets", hint="stages")
def random_cases(student: Student, rng: np.random.Generator) -> None:
    bytes_cases, max_cases = [], []
    for k in range(1, 41):
        n_gpus = int(rng.choice([1, 2, 3, 5, 8, 12, 64, 100, 1000, 4096]))
        stage = int(rng.integers(0, 4))
        n_params = int(rng.integers(0, 10 ** int(rng.integers(1, 16))))
        bytes_cases.append(((n_params, n_gpus, stage), f"random model {k} of 40"))
        budget = int(rng.integers(0, 10 ** int(rng.integers(1, 18))))
        max_cases.append(((budget, n_gpus, stage), f"random budget {k} of 40"))
    run_bytes(student, bytes_cases)
    run_max(student, max_cases)
