"""mlkata check typesets every math span of every statement with KaTeX (one node process) and fails on a TeX
error with the file and line."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from grader.authoring import katex
from grader.authoring.katex import KatexUnavailable, MathSpan, math_problems, math_spans
from tests.conftest import EXERCISES_DIR

MLKATA = str(Path(sys.executable).with_name("mlkata"))

STATEMENT = """\
Intro with $x$ and

| a | $b^2$ |
| --- | --- |
| $c$ | d |

::: hint
hint $$e$$ here
and $f
g$
:::

$$
h
$$
"""


def test_every_span_is_found_with_its_line_and_mode() -> None:
    assert math_spans(STATEMENT) == [
        MathSpan("x", False, 1),
        MathSpan("b^2", False, 3),
        MathSpan("c", False, 5),
        MathSpan("e", True, 8),
        MathSpan("f\ng", False, 9),
        MathSpan("\nh\n", True, 13),
    ]


def test_tex_errors_are_reported_with_their_line() -> None:
    statement = "Fine: $\\frac{a}{b}$.\n\nBroken: $\\frc{a}{b}$ and\n$x^$.\n\n$$\n\\begin{nope}\n$$\n"
    assert math_problems({"e": statement}) == {
        "e": [
            "statement.md, line 3: KaTeX parse error: Undefined control sequence: \\frc at position 1: "
            "\\frc{a}{b} (in $\\frc{a}{b}$)",
            "statement.md, line 4: KaTeX parse error: Expected group after '^' at position 2: x^ (in $x^$)",
            "statement.md, line 6: KaTeX parse error: No such environment: nope at position 8: \\begin{nope} "
            "(in $$\\begin{nope}$$)",
        ]
    }


def test_every_statement_is_typeset_in_one_node_process(monkeypatch: pytest.MonkeyPatch) -> None:
    runs: list[Any] = []
    real = subprocess.run

    def counted(*args: Any, **kwargs: Any) -> Any:
        runs.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(katex.subprocess, "run", counted)
    statements = {p.name: (p / "statement.md").read_text() for p in EXERCISES_DIR.iterdir() if p.is_dir()}
    assert len(statements) > 1
    problems = math_problems(statements)
    assert problems == {name: [] for name in statements}  # the shipped statements typeset
    assert len(runs) == 1 and runs[0][0].endswith("node")


def test_without_katex_installed_it_says_what_to_do(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(katex, "KATEX", tmp_path / "node_modules" / "katex")
    with pytest.raises(KatexUnavailable, match="make frontend"):
        math_problems({"e": "$x$"})


def test_mlkata_check_fails_on_a_tex_error_with_the_file_and_line(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise(files={"statement.md": "Write `add(a, b)`.\n\nIt returns $a \\plus b$.\n"})
    run = subprocess.run(
        [MLKATA, "check", "--reference-only", "--exercises", str(folder.parent)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 1
    assert "✗ statement renders" in run.stdout
    assert "statement.md, line 3: KaTeX parse error: Undefined control sequence: \\plus" in run.stdout
