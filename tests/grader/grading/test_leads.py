"""Naming a run's mistake: only a known mistake that explains every check failing on its answers."""

from __future__ import annotations

from pathlib import Path

from grader.exercise import Exercise, load_exercise
from grader.grading.mistakes.leads import name_mistakes
from grader.grading.symptoms import SENTENCES
from grader.results.records import CheckResult, Reason, Status

KV = Path(__file__).resolve().parents[3] / "exercises" / "kv-cache-decoding"


def _result(check_id: str, reason: Reason, hint_id: str | None = None) -> CheckResult:
    status = Status.PASS if reason is Reason.PASSED else Status.FAIL
    return CheckResult(
        name=check_id, id=check_id, status=status, reason=reason, public=False, points=0, duration_ms=0,
        hint_id=hint_id, hint="a hint" if hint_id else None,
    )  # fmt: skip


def _exercise() -> Exercise:
    return load_exercise(KV)


def test_a_mistake_explaining_every_failing_check_leads() -> None:
    exercise = _exercise()
    tests = [
        _result("worked_example", Reason.WRONG_ANSWER),
        _result("random_shapes", Reason.WRONG_ANSWER, "scaling"),
        _result("empty_cache_first_step", Reason.PASSED),
    ]
    matches = {"worked_example": ["scale-by-d", "no-scaling"], "random_shapes": ["no-scaling"]}
    lead = name_mistakes(exercise, tests, matches, exercise.known_mistakes)
    assert lead is not None and lead.id == "no-scaling"
    assert lead.checks == ["worked_example", "random_shapes"]
    assert [t.mistake_id for t in tests] == ["no-scaling", "no-scaling", None]
    # Its hint is said once, for the run: not again under the check.
    assert tests[1].hint is None and tests[1].hint_id is None


def test_one_check_of_several_is_no_lead() -> None:
    exercise = _exercise()
    names = ["worked_example", "random_shapes", "head_size_one", "long_sequence", "large_magnitudes"]
    tests = [_result(name, Reason.WRONG_ANSWER) for name in names]
    lead = name_mistakes(exercise, tests, {"random_shapes": ["float16"]}, exercise.known_mistakes)
    assert lead is None
    assert all(t.mistake_id is None for t in tests)


def test_a_check_the_solution_passes_does_not_contradict_the_mistake() -> None:
    # A student can make the mistake and still get the empty cache right, which the mutant does not.
    exercise = _exercise()
    tests = [_result("worked_example", Reason.WRONG_ANSWER), _result("empty_cache_first_step", Reason.PASSED)]
    lead = name_mistakes(exercise, tests, {"worked_example": ["no-append"]}, exercise.known_mistakes)
    assert lead is not None and lead.id == "no-append"


def test_limits_are_not_explained_by_a_mistake() -> None:
    exercise = _exercise()
    tests = [_result("worked_example", Reason.WRONG_ANSWER), _result("long_sequence", Reason.TIMEOUT)]
    lead = name_mistakes(exercise, tests, {"worked_example": ["no-scaling"]}, exercise.known_mistakes)
    assert lead is not None and lead.checks == ["worked_example"]
    assert name_mistakes(exercise, [_result("long_sequence", Reason.TIMEOUT)], {}, []) is None


def test_a_named_mistake_is_said_instead_of_the_checks_own_symptom() -> None:
    exercise = _exercise()
    off_by_one = SENTENCES["off-by-one"].format(more_less="more")
    tests = [_result("worked_example", Reason.WRONG_ANSWER), _result("random_shapes", Reason.WRONG_ANSWER)]
    tests[0].message, tests[0].symptom = f"bytes: expected 128, got 129\n{off_by_one}", "off-by-one"
    tests[1].message, tests[1].symptom = f"out differs\n{SENTENCES['precision-float32']}", "precision-float32"
    matches = {"worked_example": ["no-scaling"], "random_shapes": ["no-scaling"]}
    lead = name_mistakes(exercise, tests, matches, exercise.known_mistakes)
    assert lead is not None
    assert [t.message for t in tests] == ["bytes: expected 128, got 129", "out differs"]
    assert [t.symptom for t in tests] == ["off-by-one", "precision-float32"]  # for the instructor's counts
    # Without a lead, each check keeps its own.
    alone = _result("worked_example", Reason.WRONG_ANSWER)
    alone.message, alone.symptom = f"bytes: expected 128, got 129\n{off_by_one}", "off-by-one"
    assert name_mistakes(exercise, [alone], {}, exercise.known_mistakes) is None
    assert alone.symptom == "off-by-one" and off_by_one in (alone.message or "")
