"""The human report of one grade, as ``mlkata grade`` prints it: a line per check, the output, a summary."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from grader.results import GradeResult, Status


def print_result(result: GradeResult, console: Console) -> None:
    """The human report: a line per check, the output, a summary."""
    if result.output:
        console.print("[dim]output while loading:[/]")
        console.print(escape(result.output.rstrip()))
    by_id = {test.id: test for test in result.tests}
    for test in result.tests:
        mark = "[green]✓[/]" if test.status is Status.PASS else "[red]✗[/]"
        console.print(f"{mark} {escape(test.name)}")
        first = by_id.get(test.same_as) if test.same_as else None
        if first is not None and (not test.public or test.message == first.message):
            # The same failure as an earlier check's, said there: a starter's traceback once, not under every check.
            console.print(f"    [dim]failed as “{escape(first.name)}” did[/]")
        elif test.message:
            console.print("    " + escape(test.message).replace("\n", "\n    "))
        if test.withheld_message:
            # The command line is the author's view: what the exercise tried to say, and why it was not said.
            text = escape(test.withheld_message).replace("\n", "\n    ")
            console.print(f"    [red]withheld (it shows this hidden check's values):[/] {text}")
        if test.hint:
            console.print(f"    [yellow]hint:[/] {escape(test.hint)}")
        for key, value in (test.details or {}).items():
            console.print(f"    [dim]{key}:[/] {escape(value)}")
        if test.output:
            console.print("    [dim]output:[/] " + escape(test.output.rstrip()).replace("\n", "\n    "))
        elif test.hidden_output:
            # The command line is the instructor's view: a hidden check's output is shown, and said to be hidden.
            text = escape(test.hidden_output.rstrip()).replace("\n", "\n    ")
            console.print("    [dim]output (hidden check: students see only that it printed):[/] " + text)
    if result.mistake is not None:
        console.print(f"[bold yellow]Most likely mistake:[/] {escape(result.mistake.mistake)}")
        if result.mistake.hint:
            console.print(f"    [yellow]hint:[/] {escape(result.mistake.hint)}")
    passed = sum(t.status is Status.PASS for t in result.tests)
    colour = {"pass": "green", "fail": "red", "error": "red"}[result.status.value]
    summary = result.message or ""
    if result.tests:
        summary = f"{passed}/{len(result.tests)} checks passed"
    console.print(
        f"[bold {colour}]{result.status.value.upper()}[/] {escape(summary)} · {result.duration_ms / 1000:.2f} s"
    )
    if not result.tests and result.message:
        console.print(escape(result.message))
