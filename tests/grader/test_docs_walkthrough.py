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


@pytest.mark.parametrize("transcript", [t for t in transcripts() if t.startswith("$ .venv/bin/mlkata grade")])
def test_what_the_walkthrough_shows_a_student_is_what_the_grader_says(tmp_path: Path, transcript: str) -> None:
    folder = write_walkthrough(tmp_path)
    command, *shown = transcript.splitlines()
    mutant = re.search(r"exercises/stable-softmax/(mutants/\S+\.py)", command)
    assert mutant is not None
    run = subprocess.run(
        [MLKATA, "grade", str(folder / mutant.group(1)), "-e", SLUG, "--exercises", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    said = run.stdout.splitlines()
    timing = re.compile(r" · \d+\.\d\d s$")
    assert [timing.sub("", line) for line in said] == [timing.sub("", line) for line in shown]
