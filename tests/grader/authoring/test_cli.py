"""The ``mlkata`` command as a user runs it: output, JSON, JUnit and exit codes."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from grader.exercise import mutant_source
from tests.conftest import EXERCISES_DIR, KV_SLUG

MLKATA = str(Path(sys.executable).with_name("mlkata"))
REFERENCE = EXERCISES_DIR / KV_SLUG / "reference.py"


def mlkata(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([MLKATA, *args], capture_output=True, text=True, timeout=120, check=False)


def test_grade_prints_one_line_per_check_and_exits_0_on_pass() -> None:
    run = mlkata("grade", str(REFERENCE), "--exercise", KV_SLUG)
    assert run.returncode == 0
    lines = run.stdout.splitlines()
    assert lines[0] == "✓ The worked example from the statement"
    assert sum(line.startswith("✓ ") for line in lines) == 12
    assert lines[-1].startswith("PASS 12/12 checks passed · ")


def test_grade_json_prints_exactly_one_document_and_exits_1_on_fail(tmp_path: Path) -> None:
    solution = tmp_path / "solution.py"
    solution.write_text(mutant_source(EXERCISES_DIR / KV_SLUG, "no-scaling"))
    run = mlkata("grade", str(solution), "--exercise", KV_SLUG, "--json")
    assert run.returncode == 1
    document = json.loads(run.stdout)
    assert document["status"] == "fail"
    assert "worked_example" in {t["id"] for t in document["tests"] if t["status"] == "fail"}


def test_grade_writes_junit_xml(tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    run = mlkata("grade", str(EXERCISES_DIR / KV_SLUG / "starter.py"), "-e", KV_SLUG, "--junit", str(report))
    assert run.returncode == 1
    suite = ET.parse(report).getroot()
    assert suite.tag == "testsuite" and suite.get("tests") == "12" and suite.get("failures") == "12"
    assert "NotImplementedError" in suite.find("testcase/failure").text


def test_grade_shows_the_instructor_what_hidden_checks_printed_and_says_they_are_hidden(tmp_path: Path) -> None:
    solution = tmp_path / "solution.py"
    solution.write_text(REFERENCE.read_text().replace("    q = x_t", "    print('step')\n    q = x_t", 1))
    run = mlkata("grade", str(solution), "--exercise", KV_SLUG)
    assert run.returncode == 0
    lines = run.stdout.splitlines()
    assert lines[1] == "    output: step"  # the public worked example
    assert "    output (hidden check: students see only that it printed): step" in lines


def test_a_syntax_error_is_shown_with_its_line(tmp_path: Path) -> None:
    solution = tmp_path / "solution.py"
    solution.write_text("def attend_step(x_t, cache, p):\n    return (\n")
    run = mlkata("grade", str(solution), "-e", KV_SLUG)
    assert run.returncode == 1
    assert "SyntaxError on line 2: '(' was never closed" in run.stdout


def test_usage_problems_exit_2_with_a_message(tmp_path: Path) -> None:
    unknown = mlkata("grade", str(REFERENCE), "--exercise", "no-such-exercise")
    assert unknown.returncode == 2
    assert "no exercise 'no-such-exercise'" in unknown.stderr and KV_SLUG in unknown.stderr
    missing = mlkata("grade", str(tmp_path / "nope.py"), "--exercise", KV_SLUG)
    assert missing.returncode == 2
    assert "cannot read" in missing.stderr


def test_check_passes_on_the_shipped_exercises_and_writes_junit(tmp_path: Path) -> None:
    report = tmp_path / "check.xml"
    run = mlkata("check", KV_SLUG, "--junit", str(report))
    assert run.returncode == 0, run.stdout
    assert "✓ reference solution passes every check" in run.stdout
    suite = ET.parse(report).getroot()
    assert int(suite.get("tests")) >= 15 and suite.get("failures") == "0"


def test_check_fails_when_a_mutant_is_not_caught(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise(files={"mutants/same.py": "def add(a, b):\n    return b + a\n"})
    with (folder / "exercise.toml").open("a") as toml:
        toml.write('\n[mutants.same]\nmistake = "adds in the other order"\nhint = "plus"\n')
    run = mlkata("check", "--exercises", str(folder.parent))
    assert run.returncode == 1
    assert "✗ mutant same fails (adds in the other order)" in run.stdout
    assert "it passes every check" in run.stdout


def test_check_refuses_an_exercise_whose_mutant_diff_no_longer_applies(tmp_path: Path) -> None:
    folder = tmp_path / KV_SLUG
    shutil.copytree(EXERCISES_DIR / KV_SLUG, folder, ignore=shutil.ignore_patterns("__pycache__"))
    reference = folder / "reference.py"
    scores = "    scores = keys @ q / np.sqrt(q.shape[0])\n"
    assert scores in reference.read_text()
    reference.write_text(reference.read_text().replace(scores, "    scores = (keys @ q) / np.sqrt(q.shape[0])\n"))
    run = mlkata("check", KV_SLUG, "--exercises", str(tmp_path))
    assert run.returncode == 2 and run.stdout == ""  # refused before anything is graded
    assert f"error: exercise '{KV_SLUG}' is not valid:" in run.stderr
    assert (
        "  - mutants/no-scaling.diff: hunk @@ -9,3 +9,3 @@ (line 3 of the diff) does not apply: line 10 of "
        "reference.py is '    scores = (keys @ q) / np.sqrt(q.shape[0])', the hunk expects "
        "'    scores = keys @ q / np.sqrt(q.shape[0])'"
    ) in run.stderr.splitlines()


def test_check_warns_that_a_whole_file_mutant_does_not_follow_the_reference(
    make_exercise: Callable[..., Path],
) -> None:
    folder = make_exercise(files={"mutants/minus.py": "def add(a, b):\n    return a - b\n"})
    with (folder / "exercise.toml").open("a") as toml:
        toml.write('\n[mutants.minus]\nmistake = "Subtracts."\nhint = "plus"\n')
    run = mlkata("check", "--exercises", str(folder.parent))
    assert run.returncode == 0, run.stdout  # still loaded and graded
    assert run.stdout.splitlines()[:2] == [
        "adder",
        "  ! mutants/minus.py copies reference.py whole, so it does not follow an edit of the reference: write it as "
        "mutants/minus.diff (diff -u reference.py mutants/minus.py > mutants/minus.diff)",
    ]
    assert "✓ mutant minus fails (Subtracts.)" in run.stdout


def test_grade_exits_2_when_the_sandbox_cannot_start(make_exercise: Callable[..., Path], tmp_path: Path) -> None:
    folder = make_exercise()
    toml = (folder / "exercise.toml").read_text()
    (folder / "exercise.toml").write_text(toml.replace("[limits]\n", "[limits]\nmemory_mb = 64\n"))
    solution = tmp_path / "solution.py"
    solution.write_text("def add(a, b):\n    return a + b\n")
    args = ("grade", str(solution), "--exercise", "adder", "--exercises", str(folder.parent), "--json", "--cold")
    run = mlkata(*args)
    assert run.returncode == 2
    assert json.loads(run.stdout)["reason"] == "internal_error"


def test_check_fails_when_the_try_example_raises_and_says_where(make_exercise: Callable[..., Path]) -> None:
    folder = make_exercise()
    toml = (folder / "exercise.toml").read_text()
    try_it = 'try_it = """\nx = add(2, 3)\nadd(x, None)\n"""\n\n'
    (folder / "exercise.toml").write_text(toml.replace("[[functions]]", try_it + "[[functions]]", 1))
    run = mlkata("check", "--exercises", str(folder.parent))
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    failed = [i for i, line in enumerate(lines) if line.startswith("  ✗ ")]
    [at] = failed
    assert lines[at].startswith("  ✗ try_it runs on the reference and shows a value (")
    assert lines[0] == "adder"  # under the exercise's name
    assert lines[at + 1] == "      try_it, line 2: add(x, None)"
    assert lines[at + 2].startswith("      Line 2 of try_it raised TypeError: unsupported operand type(s) for +")
    assert lines[-1] == "4/5 properties hold in 1 exercise(s)"
