"""What each run told its student, as the instructor's analytics count it: mistakes, derived mistakes, symptoms."""

from __future__ import annotations

from app.courses.dashboard import diagnoses


def test_a_runs_lead_its_checks_mistakes_and_their_symptoms_are_each_counted_once() -> None:
    result = {
        "mistake": {"id": "no-scaling", "mistake": "Scores are not divided by √d."},
        "tests": [
            {"id": "a", "status": "fail", "mistake_id": "no-scaling", "symptom": "factor"},
            {"id": "b", "status": "fail", "mistake_id": "no-scaling", "symptom": "factor"},
            {"id": "c", "status": "fail", "symptom": "first-only"},
            {"id": "d", "status": "pass", "symptom": "transpose"},  # a passing check says nothing
        ],
    }
    assert diagnoses(result) == [
        ("no-scaling", "Scores are not divided by √d."),
        ("symptom/factor", "symptom: off by a named factor"),
        ("symptom/first-only", "symptom: right on the first step only"),
    ]


def test_a_derived_mistake_is_counted_by_the_hint_it_gave_never_by_its_own_id() -> None:
    result = {"mistake": {"id": "derived/top-p-crossing/3", "mistake": "one small change"}, "tests": []}
    other = {"mistake": {"id": "derived/top-p-crossing/7", "mistake": "one small change"}, "tests": []}
    assert (
        diagnoses(result)
        == diagnoses(other)
        == [("derived/top-p-crossing", "a small change in what the hint “top-p-crossing” is about")]
    )


def test_a_result_without_diagnoses_or_of_an_unknown_shape_gives_none() -> None:
    assert diagnoses({}) == []
    assert diagnoses({"tests": [{"status": "fail", "symptom": "not-a-kind"}, "junk"]}) == []
