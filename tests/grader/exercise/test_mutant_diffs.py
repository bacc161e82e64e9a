"""Mutants written as unified diffs against reference.py: applied at load, reported when a hunk does not
apply, and used everywhere a whole-file mutant is (mlkata check, naming a student's mistake)."""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.exercise import ExerciseError, load_exercise
from grader.exercise.mutants import mutant_source
from grader.exercise.patches import PatchError, apply_diff
from grader.grading import grade

MLKATA = str(Path(sys.executable).with_name("mlkata"))

REFERENCE = """\
def add(a, b):
    total = a + b
    return total
"""

MINUS = """\
--- reference.py
+++ mutants/minus.py
@@ -1,3 +1,3 @@
 def add(a, b):
-    total = a + b
+    total = a - b
     return total
"""

TABLE = '\n[mutants.minus]\nmistake = "Subtracts."\nhint = "plus"\ncaught_by = ["small_numbers"]\n'


def mlkata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MLKATA, *args], capture_output=True, text=True, timeout=120, check=False)


def with_diff(make_exercise: Callable[..., Path], diff: str = MINUS, **files: str) -> Path:
    folder = make_exercise(files={"reference.py": REFERENCE, "mutants/minus.diff": diff, **files})
    with (folder / "exercise.toml").open("a") as toml:
        toml.write(TABLE)
    return folder


# --------------------------------------------------------------------------- applying a diff


def test_a_diff_is_applied_hunk_by_hunk() -> None:
    text = "".join(f"line {n}\n" for n in range(1, 21))
    diff = "@@ -2,3 +2,3 @@\n line 2\n-line 3\n+LINE 3\n line 4\n@@ -15,2 +15,3 @@\n line 15\n+inserted\n line 16\n"
    patched = apply_diff(text, diff).splitlines()
    assert patched[2] == "LINE 3" and patched[15] == "inserted" and len(patched) == 21


def test_a_hunk_whose_lines_moved_still_applies_where_they_occur_once() -> None:
    moved = "import numpy as np\n\n" + REFERENCE  # the reference grew two lines above the hunk
    assert "total = a - b" in apply_diff(moved, MINUS)


def test_a_hunk_that_does_not_apply_is_named_with_the_line_that_differs() -> None:
    with pytest.raises(PatchError) as raised:
        apply_diff(REFERENCE.replace("total = a + b", "s = a + b"), MINUS, name="reference.py")
    assert str(raised.value) == (
        "hunk @@ -1,3 +1,3 @@ (line 3 of the diff) does not apply: line 2 of reference.py is '    s = a + b', "
        "the hunk expects '    total = a + b'"
    )


@pytest.mark.parametrize(
    ("diff", "problem"),
    [
        ("not a diff\n", "the diff holds no hunk"),
        ("@@ -1,3 +1,3 @@\n def add(a, b):\n", "ends early: it announces 3 old and 3 new lines, and holds 1 and 1"),
    ],
)
def test_a_diff_that_cannot_be_read_says_why(diff: str, problem: str) -> None:
    with pytest.raises(PatchError, match=problem):
        apply_diff(REFERENCE, diff)


# --------------------------------------------------------------------------- in an exercise


def test_a_diff_mutant_loads_as_the_patched_reference(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(with_diff(make_exercise))
    assert exercise.mutant_file("minus").name == "minus.diff"
    path = exercise.mutant_paths()["minus"]
    assert path.suffix == ".py" and path.read_text() == REFERENCE.replace("a + b", "a - b")
    assert [m.name for m in exercise.known_mistakes] == ["minus"]


def test_a_mutants_source_is_read_without_loading_its_exercise(make_exercise: Callable[..., Path]) -> None:
    folder = with_diff(make_exercise, **{"mutants/times.py": "def add(a, b):\n    return a * b\n"})
    assert mutant_source(folder, "minus") == REFERENCE.replace("a + b", "a - b")
    assert mutant_source(folder, "times") == "def add(a, b):\n    return a * b\n"


def test_a_student_making_a_diff_mutants_mistake_is_told_so(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(with_diff(make_exercise))
    result = grade(exercise, "def add(a, b):\n    return a - b\n")
    assert result.mistake is not None and result.mistake.id == "minus"
    assert result.mistake.hint == "Use the + operator."


def test_mlkata_check_grades_a_diff_mutant(make_exercise: Callable[..., Path]) -> None:
    run = mlkata("check", "--exercises", str(with_diff(make_exercise).parent))
    assert run.returncode == 0, run.stdout
    assert "✓ mutant minus fails (Subtracts.)" in run.stdout


def test_a_diff_that_does_not_apply_stops_the_exercise_from_loading(make_exercise: Callable[..., Path]) -> None:
    folder = with_diff(make_exercise, **{"reference.py": "def add(a, b):\n    return a + b\n"})
    with pytest.raises(ExerciseError) as raised:
        load_exercise(folder)
    [problem] = raised.value.problems
    assert problem.startswith("mutants/minus.diff: hunk @@ -1,3 +1,3 @@ (line 3 of the diff) does not apply: ")
    assert "line 2 of reference.py is '    return a + b', the hunk expects '    total = a + b'" in problem


def test_a_diff_whose_result_does_not_compile_is_reported(make_exercise: Callable[..., Path]) -> None:
    folder = with_diff(make_exercise, MINUS.replace("+    total = a - b", "+    total = a -"))
    with pytest.raises(ExerciseError) as raised:
        load_exercise(folder)
    assert raised.value.problems == ["mutants/minus.diff (applied to reference.py), line 2: invalid syntax"]


def test_one_mutant_has_one_file(make_exercise: Callable[..., Path]) -> None:
    folder = with_diff(make_exercise, **{"mutants/minus.py": "def add(a, b):\n    return a - b\n"})
    with pytest.raises(ExerciseError) as raised:
        load_exercise(folder)
    assert raised.value.problems == ["mutants/minus.py, mutants/minus.diff: two files for one mutant (keep one)"]


def test_an_undescribed_diff_and_a_missing_mutant_are_named(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise(files={"reference.py": REFERENCE, "mutants/minus.diff": MINUS})
    with (folder / "exercise.toml").open("a") as toml:
        toml.write('\n[mutants.times]\nmistake = "Multiplies."\nhint = "plus"\n')
    with pytest.raises(ExerciseError) as raised:
        load_exercise(folder)
    assert sorted(raised.value.problems) == [
        "exercise.toml: mutants.times: file mutants/times.py (or mutants/times.diff) is missing",
        "mutants/minus.diff: not described in exercise.toml (add a [mutants.minus] table)",
    ]


# --------------------------------------------------------------------------- mlkata check --reference-only


def test_reference_only_checks_the_statement_and_the_reference_before_the_mutants_exist(
    make_exercise: Callable[..., Path],
) -> None:
    folder = make_exercise()
    with (folder / "exercise.toml").open("a") as toml:
        toml.write('\n[mutants.later]\nmistake = "Not written yet."\nhint = "plus"\n')
    full = mlkata("check", "--exercises", str(folder.parent))
    assert full.returncode == 2 and "file mutants/later.py (or mutants/later.diff) is missing" in full.stderr
    run = mlkata("check", "adder", "--reference-only", "--exercises", str(folder.parent))
    assert run.returncode == 0, run.stdout + run.stderr
    assert [re.sub(r" \(\d+\.\d\d s\)$", "", line) for line in run.stdout.splitlines()] == [
        "adder",
        "  ✓ statement renders",
        "  ✓ reference solution passes every check",
        "  ✓ try example runs on the reference",
        "3/3 properties hold in 1 exercise(s)",
    ]


def test_reference_only_still_fails_a_failing_reference(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise(files={"reference.py": "def add(a, b):\n    return a * b\n"})
    run = mlkata("check", "--reference-only", "--exercises", str(folder.parent))
    assert run.returncode == 1
    assert "✗ reference solution passes every check" in run.stdout
    assert "starter" not in run.stdout
    assert mlkata("check", "--reference-only", "--mutation", "--exercises", str(folder.parent)).returncode == 2
