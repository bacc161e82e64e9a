"""Golden cases: a tiny exercise, a solution and the exact results it must produce, through the real CLI.

Each folder under ``golden/`` stands alone, as in Exercism's test runners::

    golden/<case>/
    ├── exercise/        an exercise of its own (exercise.toml, statement.md, starter.py, reference.py,
    │                    checks.py), with the limits the case needs
    ├── solution.py      the submission
    └── expected.json    what ``mlkata grade solution.py -e exercise --exercises <case> --json`` prints,
                         durations zeroed

so that changing a real exercise under ``exercises/`` never changes a golden case. Regenerate after an
intended change with ``MLKATA_UPDATE_GOLDEN=1 pytest tests/grader/test_golden.py``, then read every
``expected.json`` that changed: its messages are what a student reads.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.name for p in GOLDEN.iterdir() if p.is_dir() and p.name != "__pycache__")
SLUG = "exercise"
MLKATA = str(Path(sys.executable).with_name("mlkata"))
SCHEMA = json.loads((Path(__file__).resolve().parents[2] / "grader" / "results" / "results.schema.json").read_text())
UPDATE = bool(os.environ.get("MLKATA_UPDATE_GOLDEN"))

EXERCISE_FILES = {"exercise.toml", "statement.md", "starter.py", "reference.py", "checks.py"}
CASE_FILES = {SLUG, "solution.py", "expected.json"}


def mlkata(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MLKATA, *map(str, args)], capture_output=True, text=True, timeout=120, check=False)


def normalised(document: dict[str, Any]) -> dict[str, Any]:
    """The document without what depends on the machine: how long the run and each check took."""
    document["duration_ms"] = 0
    for test in document["tests"]:
        test["duration_ms"] = 0
    return document


@pytest.mark.parametrize("case", CASES)
def test_case_folder_is_complete(case: str) -> None:
    folder = GOLDEN / case
    present = {p.name for p in folder.iterdir() if p.name != "__pycache__"}
    wanted = CASE_FILES - ({"expected.json"} if UPDATE else set())
    assert wanted <= present <= CASE_FILES, f"{case}: holds {sorted(present)}, should hold {sorted(CASE_FILES)}"
    exercise = folder / SLUG
    files = {p.name for p in exercise.iterdir() if p.name != "__pycache__"}
    assert files >= EXERCISE_FILES, f"{case}/{SLUG}: missing {sorted(EXERCISE_FILES - files)}"
    extra = files - EXERCISE_FILES - {"mutants"}
    assert not extra, f"{case}/{SLUG}: holds files an exercise does not: {sorted(extra)}"


@pytest.mark.parametrize("case", CASES)
def test_case_exercise_is_sound(case: str) -> None:
    """Each case's own exercise loads, its reference passes and its starter does not (``mlkata check``)."""
    completed = mlkata("check", "--exercises", GOLDEN / case, SLUG)
    assert completed.returncode == 0, completed.stdout + completed.stderr


@pytest.mark.parametrize("case", CASES)
def test_golden_case(case: str) -> None:
    folder = GOLDEN / case
    completed = mlkata("grade", folder / "solution.py", "--exercise", SLUG, "--exercises", folder, "--json")
    assert completed.stdout, completed.stderr
    document = json.loads(completed.stdout)
    errors = [f"{'/'.join(map(str, e.path))}: {e.message}" for e in Draft202012Validator(SCHEMA).iter_errors(document)]
    assert not errors, errors
    document = normalised(document)
    expected_file = folder / "expected.json"
    if UPDATE:
        expected_file.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    assert document == json.loads(expected_file.read_text())
    assert completed.returncode == (0 if document["status"] == "pass" else 1), completed.stderr


#: How a run can end that the golden cases must keep covering, whatever else they hold.
COVERED = {
    "passed", "wrong_answer", "raised", "syntax_error", "missing_function", "exited", "timeout", "memory_limit",
    "output_limit", "blocked_syscall",
}  # fmt: skip


def test_cases_cover_every_kind_of_ending() -> None:
    """Runs after the cases, so that it sees the files ``MLKATA_UPDATE_GOLDEN=1`` has just written."""
    reasons = {json.loads((GOLDEN / case / "expected.json").read_text())["reason"] for case in CASES}
    assert reasons >= COVERED, f"no golden case ends with {sorted(COVERED - reasons)}"
