"""The terminal report: a line per check with its message, hint and details, then a summary."""

from __future__ import annotations

from rich.console import Console

from grader.authoring.terminal import print_result
from grader.results.records import CheckResult, GradeResult, Reason, Status


def _render(result: GradeResult) -> str:
    console = Console(record=True, width=200, highlight=False)
    print_result(result, console)
    return console.export_text()


def test_a_failing_check_shows_its_message_hint_details_and_output() -> None:
    check = CheckResult(
        name="The example", id="example", status=Status.FAIL, reason=Reason.WRONG_ANSWER, message="out differs",
        public=True, points=0, duration_ms=3, hint="Divide by √d.", details={"got": "array([1.])"}, output="hi\n",
    )  # fmt: skip
    text = _render(GradeResult(status=Status.FAIL, reason=Reason.WRONG_ANSWER, exercise="x", tests=[check]))
    assert text.splitlines()[:5] == [
        "✗ The example", "    out differs", "    hint: Divide by √d.", "    got: array([1.])", "    output: hi",
    ]  # fmt: skip
    assert text.splitlines()[-1].startswith("FAIL 0/1 checks passed · ")


def test_markup_in_a_solutions_output_is_shown_as_written() -> None:
    check = CheckResult(name="c", id="c", status=Status.PASS, reason=Reason.PASSED, public=True, points=1,
                        duration_ms=1, output="[red]not red[/red]\n")  # fmt: skip
    assert "[red]not red[/red]" in _render(GradeResult(status=Status.PASS, reason=Reason.PASSED, exercise="x",
                                                       tests=[check]))  # fmt: skip
