"""``mlkata check --mutation`` as a user runs it: its output, JUnit report and exit code."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

from tests.grader.authoring.mutation.mutation_support import SURVIVOR, WEAK_CHECKS

MLKATA = str(Path(sys.executable).with_name("mlkata"))


def check(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [MLKATA, "check", "--exercises", str(folder.parent), *args],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def weak_folder(make_exercise: Callable[..., Path], table: str) -> Path:
    folder = make_exercise(files={"checks.py": WEAK_CHECKS})
    with (folder / "exercise.toml").open("a", encoding="utf-8") as toml:
        toml.write(table)
    return folder


def test_below_the_minimum_it_prints_the_survivor_and_exits_1(
    make_exercise: Callable[..., Path], tmp_path: Path
) -> None:
    folder = weak_folder(make_exercise, "\n[mutation]\nminimum = 0.9\n")
    report = tmp_path / "check.xml"
    run = check(folder, "--mutation", "--junit", str(report))
    assert run.returncode == 1, run.stdout
    lines = run.stdout.splitlines()
    assert "  mutation analysis: 3 mutants of reference.py (0 not compiling and 0 duplicates left out)" in lines
    assert "    3/3 mutants graded, 1 passing every check" in lines
    [score] = [line for line in lines if "mutation score" in line]
    assert score.startswith("  ✗ mutation score 0.66 (at least 0.90 required): 2 of 3 mutants killed")
    assert " graded in " in score
    assert f"      survivor {SURVIVOR}" in lines
    assert "        +    return a * b" in lines
    assert lines[-1] == "5/6 properties hold in 1 exercise(s)"
    cases = {case.get("name"): case for case in ET.parse(report).getroot().iter("testcase")}
    failure = cases["mutation score at least 0.90"].find("failure")
    assert failure is not None and f"survives: {SURVIVOR}" in (failure.text or "")


def test_with_the_survivor_accepted_as_equivalent_it_exits_0(make_exercise: Callable[..., Path]) -> None:
    folder = weak_folder(
        make_exercise, f'\n[mutation]\nminimum = 0.9\n\n[mutation.equivalent]\n"{SURVIVOR}" = "test"\n'
    )
    run = check(folder, "--mutation")
    assert run.returncode == 0, run.stdout
    assert "  ✓ mutation score 1.00 (at least 0.90 required): 2 of 2 mutants killed, 1 accepted as equivalent" in (
        run.stdout
    )
    assert "survivor" not in run.stdout
    assert run.stdout.splitlines()[-1] == "6/6 properties hold in 1 exercise(s)"


def test_without_the_flag_only_the_fast_checks_run(make_exercise: Callable[..., Path]) -> None:
    run = check(weak_folder(make_exercise, "\n[mutation]\nminimum = 0.9\n"))
    assert run.returncode == 0, run.stdout
    assert "mutation" not in run.stdout
    assert run.stdout.splitlines()[-1] == "5/5 properties hold in 1 exercise(s)"


def test_a_stale_acceptance_fails_the_check(make_exercise: Callable[..., Path]) -> None:
    run = check(
        weak_folder(make_exercise, '\n[mutation.equivalent]\n"statement@L9: x -> pass" = "gone"\n'), "--mutation"
    )
    assert run.returncode == 1
    assert "stale: [mutation.equivalent] accepts 'statement@L9: x -> pass', which no mutant has any more" in run.stdout
