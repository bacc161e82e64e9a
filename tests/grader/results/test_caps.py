"""Caps on what one run reports: a small solution cannot make a large result."""

from __future__ import annotations

from grader.results.caps import MESSAGE_CHARS, RESULT_BYTES, cap_text, fit_result
from grader.results.records import CheckResult, GradeResult, Reason, Status


def _check(n: int, message: str, output: str) -> CheckResult:
    return CheckResult(
        name=f"check {n}", id=f"c{n}", status=Status.FAIL, reason=Reason.WRONG_ANSWER, message=message,
        output=output, public=True, points=0, duration_ms=1,
    )  # fmt: skip


def test_cut_text_says_how_much_was_left_out() -> None:
    assert cap_text("short", 10) == "short"
    assert cap_text(None, 10) is None
    assert cap_text("x" * 25, 10) == "x" * 10 + "\n… 15 more characters not shown"


def test_a_result_is_cut_to_its_cap_outputs_first() -> None:
    checks = [_check(n, "m" * MESSAGE_CHARS, "o" * 64 * 1024) for n in range(40)]
    result = GradeResult(status=Status.FAIL, reason=Reason.WRONG_ANSWER, exercise="x", tests=checks)
    assert len(result.model_dump_json()) > 2 * RESULT_BYTES
    fitted = fit_result(result)
    assert len(fitted.model_dump_json()) <= RESULT_BYTES
    assert all(t.message == "m" * MESSAGE_CHARS for t in fitted.tests)  # messages kept while outputs can give
    assert all("more characters not shown" in (t.output or "") for t in fitted.tests)


def test_a_result_within_its_cap_is_left_as_it_is() -> None:
    result = GradeResult(status=Status.FAIL, reason=Reason.WRONG_ANSWER, exercise="x", tests=[_check(1, "m", "o")])
    assert fit_result(result) == result
