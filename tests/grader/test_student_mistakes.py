"""Sixty wrong solutions written from the statements alone: what each is told, held to what was judged true.

``student_mistakes/told.toml`` says, for each, how its mistake is named (read once by hand against
the file's ``Mistake:`` line): by the run's lead (a known mistake, or one derived from the
reference by the hint it gives), by a failing check's symptom, or by a failing check whose title
states the rule it breaks; or that nothing names it. The test holds the grader to it: a solution
named by a lead keeps that lead, and one named otherwise, or not at all, gets no lead, so that a
misleading lead cannot appear unnoticed. At least 80% are named.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

from grader.exercise import Exercise, load_exercise
from grader.grading.engine import grade
from grader.results.records import Status

ROOT = Path(__file__).resolve().parent / "student_mistakes"
EXERCISES = Path(__file__).resolve().parents[2] / "exercises"
TOLD: dict[str, dict[str, Any]] = tomllib.loads((ROOT / "told.toml").read_text(encoding="utf-8"))
CASES = [(slug, name) for slug, files in sorted(TOLD.items()) for name in sorted(files)]
_exercises: dict[str, Exercise] = {}


def _exercise(slug: str) -> Exercise:
    if slug not in _exercises:
        _exercises[slug] = load_exercise(EXERCISES / slug)
    return _exercises[slug]


def test_every_wrong_solution_is_judged_and_four_in_five_are_named() -> None:
    on_disk = {(p.parent.name, p.stem) for p in ROOT.glob("*/*.py")}
    assert on_disk == set(CASES)
    named = [case for case in CASES if TOLD[case[0]][case[1]].get("named", True)]
    assert len(named) >= 0.8 * len(CASES), f"{len(named)} of {len(CASES)} named"


@pytest.mark.parametrize(("slug", "name"), CASES, ids=[f"{s}/{n}" for s, n in CASES])
def test_what_a_wrong_solution_is_told(slug: str, name: str) -> None:
    told = TOLD[slug][name]
    result = grade(_exercise(slug), (ROOT / slug / f"{name}.py").read_text(encoding="utf-8"))
    assert result.status is Status.FAIL, result.message
    failing = result.failing()
    lead = result.mistake.id if result.mistake else None
    if "lead" in told:
        assert lead is not None and (lead == told["lead"] or lead.startswith(told["lead"] + "/")), result.message
        return
    assert lead is None, f"a lead nobody judged: {result.message}"
    if "symptom" in told:
        assert told["symptom"] in {t.symptom for t in failing}, [t.message for t in failing]
    if "check" in told:
        assert told["check"] in {t.id for t in failing}
