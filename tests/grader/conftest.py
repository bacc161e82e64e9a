"""Fixtures for grader tests: the KV-cache exercise with tight limits (``kv_exercise`` is in tests/conftest.py),
and the shipped exercises' references and starters graded once for the session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from grader.exercise import Exercise, load_exercise, load_exercises
from grader.grading.engine import grade
from grader.results.records import GradeResult

EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
KV_EXERCISE = EXERCISES / "kv-cache-decoding"
FAST_LIMITS = {"time_seconds": "2", "wall_clock_factor": "2", "memory_mb": "256"}


def copy_with_limits(source: Path, destination: Path, limits: dict[str, str]) -> Path:
    """Copy an exercise folder and set the given keys of its ``[limits]`` table."""
    folder = destination / source.name
    shutil.copytree(source, folder, ignore=shutil.ignore_patterns("__pycache__"))
    toml = folder / "exercise.toml"
    head, sep, tail = toml.read_text(encoding="utf-8").partition("\n[limits]\n")
    if not sep:
        head, sep, tail = head, "\n[limits]\n", ""
    body, next_table, rest = tail.partition("\n[")
    kept = [line for line in body.splitlines() if line.split("=")[0].strip() not in limits]
    body = "\n".join([*(f"{key} = {value}" for key, value in limits.items()), *kept])
    toml.write_text(head + sep + body + "\n" + next_table + rest, encoding="utf-8")
    return folder


@pytest.fixture(scope="session")
def fast_exercise(tmp_path_factory: pytest.TempPathFactory) -> Exercise:
    """The KV-cache exercise with 2 s of CPU time, a 4 s wall clock and 256 MB: hostile runs end fast."""
    exercise = load_exercise(copy_with_limits(KV_EXERCISE, tmp_path_factory.mktemp("fast-exercise"), FAST_LIMITS))
    assert exercise.limits.time_seconds == 2 and exercise.limits.wall_seconds == 4 and exercise.limits.memory_mb == 256
    return exercise


class ShippedGrades:
    """Each shipped exercise's reference and starter, graded through the real sandbox once, when first asked."""

    def __init__(self) -> None:
        self.exercises = load_exercises(EXERCISES)
        self._grades: dict[tuple[str, str], GradeResult] = {}

    def reference(self, slug: str) -> GradeResult:
        return self._grade(slug, "reference")

    def starter(self, slug: str) -> GradeResult:
        return self._grade(slug, "starter")

    def _grade(self, slug: str, which: str) -> GradeResult:
        if (slug, which) not in self._grades:
            exercise = self.exercises[slug]
            source = exercise.starter if which == "starter" else exercise.reference_path.read_text(encoding="utf-8")
            self._grades[slug, which] = grade(exercise, source)
        return self._grades[slug, which].model_copy(deep=True)


@pytest.fixture(scope="session")
def shipped_grades() -> ShippedGrades:
    """Grades shared by every test that only reads them: a reference or starter is never graded twice."""
    return ShippedGrades()
