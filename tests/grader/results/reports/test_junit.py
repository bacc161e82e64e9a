"""JUnit XML of a grade, for CI: a case per check, failures and errors apart, what each printed."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from grader.results.records import CheckResult, GradeResult, Reason, Status
from grader.results.reports.junit import cases_from_result, to_junit_xml


def _check(name: str, status: Status, message: str | None = None, **extra: object) -> CheckResult:
    reason = {Status.PASS: Reason.PASSED, Status.FAIL: Reason.WRONG_ANSWER, Status.ERROR: Reason.TIMEOUT}[status]
    return CheckResult(name=name, id=name, status=status, reason=reason, message=message, public=False, points=0,
                       duration_ms=1500, **extra)  # type: ignore[arg-type]  # fmt: skip


def test_each_check_is_a_case_with_its_failure_or_error_and_output() -> None:
    result = GradeResult(status=Status.FAIL, reason=Reason.WRONG_ANSWER, exercise="x", tests=[
        _check("passes", Status.PASS),
        _check("wrong", Status.FAIL, "out differs\nat index 0", hidden_output="printed in a hidden check\n"),
        _check("slow", Status.ERROR, "Time limit exceeded"),
    ])  # fmt: skip
    suite = ET.fromstring(to_junit_xml("x", cases_from_result(result, "exercise.x")))
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors")) == ("3", "1", "1")
    passes, wrong, slow = suite.findall("testcase")
    assert passes.find("failure") is None and passes.get("time") == "1.500"
    failure = wrong.find("failure")
    assert failure is not None and failure.get("message") == "out differs" and failure.text == "out differs\nat index 0"
    assert wrong.findtext("system-out") == "printed in a hidden check\n"  # CI is an instructor's view
    assert slow.find("error") is not None


def test_a_solution_that_did_not_load_is_one_error_case() -> None:
    result = GradeResult(status=Status.ERROR, reason=Reason.SYNTAX_ERROR, exercise="x", message="SyntaxError on line 2")
    (case,) = ET.fromstring(to_junit_xml("x", cases_from_result(result, "exercise.x"))).findall("testcase")
    assert case.get("name") == "load solution" and case.find("error").get("message") == "SyntaxError on line 2"
