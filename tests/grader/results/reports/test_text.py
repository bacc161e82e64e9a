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


def test_a_failure_an_earlier_check_had_is_not_said_again() -> None:
    traceback = 'f() raised NotImplementedError (solution.py, line 2)\n  File "solution.py", line 2, in f'
    common = {"status": Status.FAIL, "reason": Reason.RAISED, "points": 0, "duration_ms": 1}
    first = CheckResult(name="First", id="first", message=traceback, public=True, **common)
    hidden = CheckResult(
        name="Hidden",
        id="hidden",
        message="f() raised NotImplementedError on line 2 of solution.py "
        "(its message is not shown: this check is hidden).",
        public=False,
        same_as="first",
        **common,
    )
    own = CheckResult(name="Own words", id="own", message="f() raised NotImplementedError: n=3 (solution.py, line 2)",
                      public=True, same_as="first", **common)  # fmt: skip
    text = _render(GradeResult(status=Status.FAIL, reason=Reason.RAISED, exercise="x", tests=[first, hidden, own]))
    assert text.count('File "solution.py", line 2') == 1
    assert "✗ Hidden\n    failed as “First” did\n" in text
    assert "n=3" in text  # a public check's own words are its own
