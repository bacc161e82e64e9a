"""Deriving mutants: whole solutions, stable readable ids, and no mutant that does not compile or changes nothing."""

from __future__ import annotations

import re

import pytest

from grader.authoring.mutation import MutationError, derive_mutants
from tests.conftest import EXERCISES_DIR, KV_SLUG

KV_REFERENCE = (EXERCISES_DIR / KV_SLUG / "reference.py").read_text(encoding="utf-8")
ID = re.compile(r"^[a-z]+@L\d+: .+ -> .+( #\d+)?$")


def test_each_mutant_is_a_whole_solution_that_keeps_the_formatting_and_comments() -> None:
    source = "import numpy as np  # arrays\n\n\ndef f(x):\n    # the total\n    return np.sum(x,  axis=0)\n"
    for mutant in derive_mutants(source).mutants:
        assert mutant.source.startswith("import numpy as np  # arrays\n\n\ndef f(x):\n    # the total\n")
        assert mutant.source != source


def test_ids_name_the_operator_the_line_and_the_change_and_are_the_same_on_every_run() -> None:
    first = derive_mutants(KV_REFERENCE).mutants
    again = derive_mutants(KV_REFERENCE).mutants
    assert [m.id for m in first] == [m.id for m in again]
    assert len({m.id for m in first}) == len(first)
    assert all(ID.match(m.id) for m in first), [m.id for m in first if not ID.match(m.id)]
    ids = {m.id for m in first}
    assert "arithmetic@L10: q / np.sqrt(q.shape[0]) -> q * np.sqrt(q.shape[0])" in ids
    assert "reduction@L11: scores.max -> scores.min" in ids
    assert 'arguments@L8: cache["k"], k[None] -> k[None], cache["k"]' in ids


def test_the_same_change_twice_on_one_line_is_told_apart_in_order() -> None:
    ids = [m.id for m in derive_mutants("def f(a):\n    return (a + a) * (a + a)\n").mutants]
    assert "arithmetic@L2: a + a -> a - a" in ids
    assert "arithmetic@L2: a + a -> a - a #2" in ids
    assert ids.index("arithmetic@L2: a + a -> a - a") < ids.index("arithmetic@L2: a + a -> a - a #2")


def test_a_mutant_that_does_not_compile_is_left_out_and_counted() -> None:
    # `.T` added to the literal of `2 @ x` gives `2.T @ x`, which is not Python.
    derived = derive_mutants("def f(x):\n    return 2 @ x\n")
    assert derived.not_compiling == 1
    assert "return 2.T @ x" not in {m.source.splitlines()[1].strip() for m in derived.mutants}
    for mutant in derived.mutants:
        compile(mutant.source, "solution.py", "exec")


def test_mutants_that_repeat_the_reference_or_each_other_are_left_out() -> None:
    # The slice operator makes x[2:] and x[0:]; the number operator would make them again.
    derived = derive_mutants("def f(x):\n    return x[1:]\n")
    sources = [m.source for m in derived.mutants]
    assert len(sources) == len(set(sources))
    assert derived.duplicates == 2
    assert {m.id for m in derived.mutants if "x[2:]" in m.source} == {"slice@L2: 1 -> 2"}


def test_a_mutant_reads_as_a_unified_diff_against_the_reference() -> None:
    reference = "def f(a, b):\n    return a + b\n"
    [mutant] = [m for m in derive_mutants(reference).mutants if m.id == "arithmetic@L2: a + b -> a - b"]
    assert mutant.diff(reference).splitlines() == [
        "--- reference.py",
        "+++ mutant arithmetic@L2: a + b -> a - b",
        "@@ -1,2 +1,2 @@",
        " def f(a, b):",
        "-    return a + b",
        "+    return a - b",
    ]


def test_a_reference_libcst_cannot_parse_is_an_error() -> None:
    with pytest.raises(MutationError, match="cannot be parsed"):
        derive_mutants("def f(:\n")
