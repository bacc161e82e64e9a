"""What an author gets from the check API at run time: hints, the seeded generator, hint ids checked at load,
and a crashing check's traceback for the author only (through the real grader, sandbox and command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from grader.checks import check_rng
from grader.exercise import ExerciseError, load_exercise
from grader.grading.engine import grade
from grader.results.records import Reason, Status

MLKATA = str(Path(sys.executable).with_name("mlkata"))
RIGHT = "def add(a, b):\n    return a + b\n"

TOML = """\
title = "Add two numbers"
section = "Warm-ups"
difficulty = "easy"

[[functions]]
name = "add"
params = ["a", "b"]

[hints]
plus = "Use the + operator."
int = "Return an int."
"""


def mlkata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MLKATA, *args], capture_output=True, text=True, timeout=120, check=False)


def exercise_with(make_exercise: Callable[..., Path], checks: str) -> Path:
    return make_exercise(files={"exercise.toml": TOML, "checks.py": checks})


# --------------------------------------------------------------------------- hints: the check's is the default


HINT_CHECKS = """\
from grader.checks import check, expect_integer, fail


@check("Default", hint="plus")
def default(student):
    fail("wrong")


@check("Own", hint="plus")
def own(student):
    fail("wrong", hint="int")


@check("None at all", hint="plus")
def none_at_all(student):
    fail("wrong", hint=None)


@check("A helper's form failure", hint="plus")
def helper_default(student):
    expect_integer(student.add(1, 1) * 0.5, 1, what="half")


@check("A helper told no hint", hint="plus")
def helper_none(student):
    expect_integer("two", 2, what="two", hint=None)


@check("A wrong value", hint="plus")
def wrong_value(student):
    expect_integer(student.add(1, 1), 3, what="add(1, 1)")
"""


def test_a_checks_hint_is_the_default_for_every_failure_inside_it_and_none_means_none(
    make_exercise: Callable[..., Path],
) -> None:
    result = grade(load_exercise(exercise_with(make_exercise, HINT_CHECKS)), RIGHT)
    hints = {t.id: t.hint_id for t in result.tests}
    assert hints == {
        "default": "plus",  # fail() without hint=: the check's
        "own": "int",
        "none_at_all": None,  # hint=None: none, though the check has one
        "helper_default": "plus",  # a helper's form failure: the check's
        "helper_none": None,
        "wrong_value": None,  # a wrong value matching no known mistake: no guessed hint
    }
    assert next(t for t in result.tests if t.id == "default").hint == "Use the + operator."


# --------------------------------------------------------------------------- the seeded generator


RNG_CHECKS = """\
from grader.checks import check, expect_integer, fail


@check("Random pairs")
def random_pairs(student, rng):
    a, b = (int(n) for n in rng.integers(-1000, 1000, size=2))
    expect_integer(student.add(a, b), a + b, what=f"add({a}, {b})")
    fail(f"drew {rng.integers(1 << 40)}")


@check("Plain")
def plain(student):
    expect_integer(student.add(2, 3), 5, what="add(2, 3)")
"""


def test_a_check_taking_rng_draws_the_same_numbers_at_every_grade(make_exercise: Callable[..., Path]) -> None:
    exercise = load_exercise(exercise_with(make_exercise, RNG_CHECKS))
    first, second = grade(exercise, RIGHT), grade(load_exercise(exercise.path), RIGHT)
    rng = check_rng("adder", "random_pairs")
    rng.integers(-1000, 1000, size=2)
    expected = f"drew {rng.integers(1 << 40)}"
    assert [t.message for t in first.tests] == [expected, None]
    assert [t.message for t in second.tests] == [expected, None]
    assert first.tests[1].status is Status.PASS  # a one-parameter check runs as before


def test_a_check_with_another_signature_is_refused_at_load(make_exercise: Callable[..., Path]) -> None:
    folder = exercise_with(
        make_exercise, "from grader.checks import check\n\n\n@check('x')\ndef odd(student, rng, extra):\n    pass\n"
    )
    with pytest.raises(ExerciseError) as raised:
        load_exercise(folder)
    assert raised.value.problems == ["checks.py: check odd(student, rng, extra) must take (student) or (student, rng)"]


# --------------------------------------------------------------------------- hint ids checked when loading


def test_every_literal_hint_id_must_be_in_hints_each_reported_with_its_line(
    make_exercise: Callable[..., Path],
) -> None:
    checks = """\
from grader.checks import check, expect_integer, fail


def helper(value, hint="plsu"):
    expect_integer(value, 2, what="value", hint=hint)


@check("One", hint="pluss")
def one(student):
    fail("no", hint="nope")


@check("Two", hint="plus")
def two(student):
    expect_integer(student.add(1, 1), 2, what="x", hint="int")
    expect_integer(student.add(1, 1), 2, what="x", hint=None)
    fail("no", hint="typo")
"""
    with pytest.raises(ExerciseError) as raised:
        load_exercise(exercise_with(make_exercise, checks))
    assert raised.value.problems == [
        "checks.py, line 4: hint 'plsu' is not in [hints] (known: int, plus)",
        "checks.py, line 8: hint 'pluss' is not in [hints] (known: int, plus)",
        "checks.py, line 10: hint 'nope' is not in [hints] (known: int, plus)",
        "checks.py, line 17: hint 'typo' is not in [hints] (known: int, plus)",
    ]


def test_mlkata_check_reports_an_unknown_hint_id_with_its_line(make_exercise: Callable[..., Path]) -> None:
    folder = exercise_with(make_exercise, HINT_CHECKS.replace('hint="int")', 'hint="integer")'))
    run = mlkata("check", "--exercises", str(folder.parent))
    assert run.returncode == 2
    assert "checks.py, line 11: hint 'integer' is not in [hints] (known: int, plus)" in run.stderr


# --------------------------------------------------------------------------- a crashing check's traceback


CRASHING_CHECKS = """\
from grader.checks import check, expect_integer


@check("Adds", public=True)
def adds(student):
    expect_integer(student.add(2, 3), 5, what="add(2, 3)")


@check("Crashes")
def crashes(student):
    total = student.add(2, 3)
    lookup = {}
    return lookup[total]
"""

STUDENT_MESSAGE = "The check itself failed (KeyError: 5). This is a problem in the exercise, not in your solution."


def test_mlkata_grade_shows_the_author_where_a_check_crashed(
    make_exercise: Callable[..., Path], tmp_path: Path
) -> None:
    folder = exercise_with(make_exercise, CRASHING_CHECKS)
    solution = tmp_path / "solution.py"
    solution.write_text(RIGHT)
    run = mlkata("grade", str(solution), "-e", "adder", "--exercises", str(folder.parent))
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert f"    {STUDENT_MESSAGE}" in lines
    at = lines.index("The check crashes raised (shown to you, not to students):")
    assert lines[at + 1 :] == [
        "  Traceback (most recent call last):",
        f'    File "{folder / "checks.py"}", line 13, in crashes',
        "      return lookup[total]",
        "             ~~~~~~^^^^^^^",
        "  KeyError: 5",
    ]


def test_students_keep_the_message_without_the_traceback(make_exercise: Callable[..., Path], tmp_path: Path) -> None:
    folder = exercise_with(make_exercise, CRASHING_CHECKS)
    solution = tmp_path / "solution.py"
    solution.write_text(RIGHT)
    run = mlkata("grade", str(solution), "-e", "adder", "--exercises", str(folder.parent), "--json")
    document = json.loads(run.stdout)  # stdout stays one document: the traceback goes to stderr
    crashed = next(t for t in document["tests"] if t["id"] == "crashes")
    assert crashed["reason"] == "internal_error" and crashed["message"] == STUDENT_MESSAGE
    assert "Traceback" not in run.stdout and "checks.py" not in run.stdout
    assert "line 13, in crashes" in run.stderr
    # The web app's path: the grade itself never carries it.
    result = grade(load_exercise(folder), RIGHT)
    assert [t.message for t in result.tests if t.reason is Reason.INTERNAL_ERROR] == [STUDENT_MESSAGE]
    assert "Traceback" not in json.dumps(result.to_json_dict())


def test_mlkata_check_shows_a_crashing_checks_traceback(make_exercise: Callable[..., Path]) -> None:
    folder = exercise_with(make_exercise, CRASHING_CHECKS)
    run = mlkata("check", "--exercises", str(folder.parent))
    assert run.returncode == 1
    assert "✗ reference solution passes every check" in run.stdout
    assert f'File "{folder / "checks.py"}", line 13, in crashes' in run.stdout
    assert "KeyError: 5" in run.stdout
