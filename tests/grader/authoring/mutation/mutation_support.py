"""Shared by the mutation tests: the lines a mutant changes, and a tiny exercise whose checks miss one mutant."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

from grader.authoring.mutation import derive_mutants
from grader.exercise import Exercise, load_exercise


def changed_lines(source: str, operator: str) -> dict[str, str]:
    """Each mutant the operator makes of ``source``: its id -> the one line it changes (stripped)."""
    source = textwrap.dedent(source)
    lines = source.splitlines()
    found = {}
    for mutant in derive_mutants(source).mutants:
        if mutant.operator != operator:
            continue
        new = mutant.source.splitlines()
        assert len(new) == len(lines), f"{mutant.id} changes the number of lines"
        [changed] = [b for a, b in zip(lines, new, strict=True) if a != b]
        found[mutant.id] = changed.strip()
    return found


def lines_of(source: str, operator: str) -> set[str]:
    return set(changed_lines(source, operator).values())


WEAK_CHECKS = """\
from grader.checks import check, expect_integer


@check("Adds two and two", public=True, hint="plus")
def two_and_two(student):
    expect_integer(student.add(2, 2), 4, what="add(2, 2)")
"""
SURVIVOR = "arithmetic@L2: a + b -> a * b"
KILLED = ["statement@L2: return a + b -> pass", "arithmetic@L2: a + b -> a - b"]


def weak_exercise(make_exercise: Callable[..., Path], mutation_table: str = "") -> Exercise:
    folder = make_exercise(files={"checks.py": WEAK_CHECKS})
    with (folder / "exercise.toml").open("a", encoding="utf-8") as toml:
        toml.write(mutation_table)
    return load_exercise(folder)
