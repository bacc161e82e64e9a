"""mlkata new: a new exercise folder that loads and that mlkata check accepts as it is."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from grader.authoring.katex import math_spans
from grader.exercise import load_exercise

MLKATA = str(Path(sys.executable).with_name("mlkata"))


def mlkata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MLKATA, *args], capture_output=True, text=True, timeout=120, check=False)


def test_new_writes_an_exercise_that_mlkata_check_accepts(tmp_path: Path) -> None:
    root = tmp_path / "exercises"
    title = 'Stable "soft" max \\ 100%'
    run = mlkata("new", "stable-softmax", "--title", title, "--section", "Foundations", "--exercises", str(root))
    assert run.returncode == 0, run.stderr
    folder = root / "stable-softmax"
    assert sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file()) == [
        "checks.py", "exercise.toml", "mutants/no-sqrt.diff", "reference.py", "starter.py", "statement.md",
    ]  # fmt: skip
    assert not [p for p in root.iterdir() if p.name.startswith(".")]  # the staging folder is gone

    exercise = load_exercise(folder)
    assert exercise.config.title == title and exercise.config.section == "Foundations"
    assert [(c.public, c.takes_rng) for c in exercise.checks] == [(True, False), (False, True)]
    assert list(exercise.config.mutants) == ["no-sqrt"]
    assert exercise.config.mutants["no-sqrt"].hint in exercise.config.hints
    assert "worked example" in exercise.statement_markdown.lower()
    assert any(span.display for span in math_spans(exercise.statement_markdown))
    assert tomllib.loads((folder / "exercise.toml").read_text())["title"] == title

    check = mlkata("check", "--exercises", str(root))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "✓ mutant no-sqrt fails (Divides by the sum of squares instead of its square root.)" in check.stdout
    assert "✓ try_it runs on the reference and shows a value" in check.stdout
    assert "6/6 properties hold in 1 exercise(s)" in check.stdout


def test_new_says_what_to_do_next(tmp_path: Path) -> None:
    root = tmp_path / "exercises"
    run = mlkata("new", "rms-norm", "--title", "RMS norm", "--section", "Layers", "--exercises", str(root))
    assert run.returncode == 0
    said = run.stdout
    assert f"Created {root / 'rms-norm'}/" in said
    for name in ("exercise.toml", "statement.md", "starter.py", "reference.py", "checks.py", "mutants/no-sqrt.diff"):
        assert f"  {name} " in said
    assert f"mlkata check rms-norm --reference-only --exercises {root}" in said
    assert f"mlkata check rms-norm --exercises {root}" in said
    assert f"MLKATA_EXERCISES_DIR={root} " in said and "serve --reload" in said
    assert "docs/exercises.md" in said


def test_new_refuses_an_existing_folder(tmp_path: Path) -> None:
    root = tmp_path / "exercises"
    (root / "taken").mkdir(parents=True)
    (root / "taken" / "notes.txt").write_text("mine")
    run = mlkata("new", "taken", "--title", "T", "--section", "S", "--exercises", str(root))
    assert run.returncode == 2
    assert f"{root / 'taken'} already exists" in run.stderr
    assert [p.name for p in (root / "taken").iterdir()] == ["notes.txt"]


def test_new_refuses_a_bad_slug_or_title(tmp_path: Path) -> None:
    root = tmp_path / "exercises"
    for slug in ("Stable_Softmax", "x-", "two--dashes", "spa ce"):
        run = mlkata("new", slug, "--title", "T", "--section", "S", "--exercises", str(root))
        assert run.returncode == 2
        assert f"{slug!r} is not a valid slug: use lowercase letters and digits, in words joined by '-'" in run.stderr
    run = mlkata("new", "fine", "--title", "two\nlines", "--section", "S", "--exercises", str(root))
    assert run.returncode == 2 and "the title must be one line" in run.stderr
    assert not root.exists() or not list(root.iterdir())
