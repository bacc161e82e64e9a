"""Every shipped exercise's reference passes and its starter fails, each graded once for the session.

A test that only needs to read how a reference or a starter is graded takes it from the
``shipped_grades`` fixture (tests/grader/conftest.py) instead of grading it again: an added
exercise costs two sandboxed grades here, and no more elsewhere.
"""

from __future__ import annotations

import pytest

from grader.exercise import load_exercises
from grader.results.records import Reason, Status
from tests.conftest import EXERCISES_DIR, KV_SLUG
from tests.grader.conftest import ShippedGrades

SLUGS = sorted(load_exercises(EXERCISES_DIR))


def test_every_exercise_folder_is_graded_here() -> None:
    assert len(SLUGS) >= 14 and KV_SLUG in SLUGS
    assert set(SLUGS) == {p.name for p in EXERCISES_DIR.iterdir() if (p / "exercise.toml").is_file()}


@pytest.mark.parametrize("slug", SLUGS)
def test_every_mutant_is_written_as_a_diff_against_the_reference(slug: str) -> None:
    # One source for the reference's lines: an edit of reference.py reaches every mutant, or stops its diff.
    mutants = EXERCISES_DIR / slug / "mutants"
    assert sorted(p.name for p in mutants.iterdir() if p.is_file() and p.suffix != ".diff") == []


@pytest.mark.parametrize("slug", SLUGS)
def test_the_reference_passes_every_check_for_full_points(shipped_grades: ShippedGrades, slug: str) -> None:
    result = shipped_grades.reference(slug)
    assert result.status is Status.PASS, result.message
    assert result.reason is Reason.PASSED
    assert [t.status for t in result.tests] == [Status.PASS] * len(shipped_grades.exercises[slug].checks)
    assert result.points == result.max_points > 0


@pytest.mark.parametrize("slug", SLUGS)
def test_the_starter_fails_every_check_by_raising_and_is_given_no_hint(
    shipped_grades: ShippedGrades, slug: str
) -> None:
    result = shipped_grades.starter(slug)
    assert result.status is Status.FAIL
    assert [t.reason for t in result.tests] == [Reason.RAISED] * len(shipped_grades.exercises[slug].checks)
    assert all("raised NotImplementedError" in (t.message or "") for t in result.tests if t.public)
    assert all(t.hint is None for t in result.tests), "no check's hint is about unwritten code"
    assert result.mistake is None and result.points == 0


@pytest.mark.parametrize("slug", SLUGS)
def test_the_starter_s_exception_is_said_once_per_function_not_once_per_check(
    shipped_grades: ShippedGrades, slug: str
) -> None:
    result = shipped_grades.starter(slug)
    first = [t.id for t in result.tests if t.same_as is None]
    assert 1 <= len(first) <= len(shipped_grades.exercises[slug].config.functions), first
    assert all(t.same_as in first for t in result.tests if t.same_as is not None)


def test_the_kv_starter_says_what_to_write_first(shipped_grades: ShippedGrades) -> None:
    assert "raised NotImplementedError: compute q, k and v" in (shipped_grades.starter(KV_SLUG).tests[0].message or "")
