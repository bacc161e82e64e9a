"""The guide's walkthrough is a real exercise: built from its code blocks, it holds together, and
what the guide shows a student reading is what the grader says."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from grader.authoring.verify import verify_exercise
from grader.exercise import load_exercise
from grader.exercise.patches import apply_diff

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "exercises.md"
MLKATA = str(Path(sys.executable).with_name("mlkata"))
SLUG = "stable-softmax"


def walkthrough() -> str:
    text = GUIDE.read_text(encoding="utf-8")
    return text[text.index("## Walkthrough") :]


def write_walkthrough(root: Path) -> Path:
    """The exercise the walkthrough builds, file by file, from its code blocks."""
    folder = root / SLUG
    for lang, body in re.findall(r"```(\w*)\n(.*?)```", walkthrough(), re.S):
        named = re.match(r"# (\S+\.py)\n", body)
        if lang == "toml":
            name = "exercise.toml"
        elif lang == "markdown":
            name = "statement.md"
        elif lang == "python":
            name = named.group(1) if named else "checks.py"
        elif lang == "diff":  # a mutant, named by its +++ line
            name = "mutants/" + re.search(r"^\+\+\+ mutants/(\S+)\.py$", body, re.M).group(1) + ".diff"
        else:
            continue  # a terminal transcript
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    return folder


def transcripts() -> list[str]:
    return [body for lang, body in re.findall(r"```(\w*)\n(.*?)```", walkthrough(), re.S) if lang == ""]


def test_the_walkthrough_exercise_holds_together(tmp_path: Path) -> None:
    findings = verify_exercise(load_exercise(write_walkthrough(tmp_path)))
    assert [f.name for f in findings if not f.ok] == []
    check_transcript = next(t for t in transcripts() if t.startswith("$ .venv/bin/mlkata check"))
    assert f"{len(findings)}/{len(findings)} properties hold" in check_transcript


def test_the_walkthrough_mutants_are_diffs_against_its_reference(tmp_path: Path) -> None:
    mutants = write_walkthrough(tmp_path) / "mutants"
    assert sorted(p.name for p in mutants.iterdir()) == ["in-place.diff", "no-normalise.diff", "unstable.diff"]


@pytest.mark.parametrize("transcript", [t for t in transcripts() if "\n$ .venv/bin/mlkata grade" in t])
def test_what_the_walkthrough_shows_a_student_is_what_the_grader_says(tmp_path: Path, transcript: str) -> None:
    folder = write_walkthrough(tmp_path / "exercises")
    patch, command, *shown = transcript.splitlines()
    written = re.fullmatch(
        r"\$ patch -s -o (\S+\.py) exercises/stable-softmax/reference\.py (exercises/\S+\.diff)", patch
    )
    solution = re.fullmatch(r"\$ \.venv/bin/mlkata grade (\S+\.py) -e stable-softmax", command)
    assert written is not None and solution is not None and written.group(1) == solution.group(1)
    # The mutant written out whole, as patch writes it (patch itself may be missing here).
    diff = (tmp_path / written.group(2)).read_text(encoding="utf-8")
    (tmp_path / written.group(1)).write_text(apply_diff((folder / "reference.py").read_text(encoding="utf-8"), diff))
    run = subprocess.run(
        [MLKATA, "grade", solution.group(1), "-e", SLUG, "--exercises", str(folder.parent)],
        capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path,
    )  # fmt: skip
    said = run.stdout.splitlines()
    timing = re.compile(r" · \d+\.\d\d s$")
    assert [timing.sub("", line) for line in said] == [timing.sub("", line) for line in shown]
