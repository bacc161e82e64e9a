"""Fixtures shared by every test folder: the real exercises, and small exercises made on the spot."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.exercise import Exercise, load_exercise

REPO_ROOT = Path(__file__).resolve().parent.parent
EXERCISES_DIR = REPO_ROOT / "exercises"
KV_SLUG = "kv-cache-decoding"

ADDER_TOML = """\
title = "Add two numbers"
section = "Warm-ups"
difficulty = "easy"
tags = ["arithmetic"]

[[functions]]
name = "add"
params = ["a", "b"]
returns = "int"

[limits]
time_seconds = {time_seconds}

[hints]
plus = "Use the + operator."
"""

ADDER_CHECKS = """\
from grader.checks import check
from grader.expect import expect_integer


@check("Adds small numbers", public=True, hint="plus")
def small_numbers(student):
    expect_integer(student.add(2, 3), 5, what="add(2, 3)")


@check("Adds huge numbers exactly")
def huge_numbers(student):
    expect_integer(student.add(10**30, 1), 10**30 + 1, what="add(10**30, 1)")
"""

ADDER_FILES = {
    "statement.md": "Write `add(a, b)`, returning $a + b$.\n",
    "starter.py": "def add(a, b):\n    raise NotImplementedError\n",
    "reference.py": "def add(a, b):\n    return a + b\n",
    "checks.py": ADDER_CHECKS,
}


@pytest.fixture(scope="session")
def kv_exercise() -> Exercise:
    """The real KV-cache exercise, as shipped."""
    return load_exercise(EXERCISES_DIR / KV_SLUG)


@pytest.fixture
def make_exercise(tmp_path: Path) -> Callable[..., Path]:
    """Write a small exercise folder ("add two numbers" unless files are overridden); return its path."""

    def make(slug: str = "adder", time_seconds: float = 5, files: dict[str, str] | None = None) -> Path:
        folder = tmp_path / "exercises" / slug
        folder.mkdir(parents=True)
        contents = {"exercise.toml": ADDER_TOML.format(time_seconds=time_seconds), **ADDER_FILES, **(files or {})}
        for name, text in contents.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(textwrap.dedent(text))
        return folder

    return make


@pytest.fixture
def adder(make_exercise: Callable[..., Path]) -> Exercise:
    return load_exercise(make_exercise())
