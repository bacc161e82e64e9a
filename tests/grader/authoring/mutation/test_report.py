"""What ``mlkata check --mutation`` prints of one analysis: progress, the score, survivors as diffs, problems."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from grader.authoring.mutation import analyse, finding, print_analysis
from grader.authoring.mutation.report import floored, progress
from tests.grader.authoring.mutation.mutation_support import SURVIVOR, weak_exercise


def plain_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, highlight=False, soft_wrap=True, no_color=True, width=200), out


def test_a_score_is_rounded_down_so_it_never_shows_as_the_minimum_it_misses() -> None:
    assert floored(0.899) == "0.89"
    assert floored(0.9) == "0.90"
    assert floored(2 / 3) == "0.66"
    assert floored(1.0) == "1.00"


def test_progress_off_a_terminal_prints_a_line_every_tenth(make_exercise: Callable[..., Path]) -> None:
    analysis = analyse(weak_exercise(make_exercise))
    console, out = plain_console()
    with progress(console, 30) as advance:
        for _ in range(10):
            for outcome in analysis.outcomes:
                advance(outcome)
    lines = out.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0].strip() == "3/30 mutants graded, 1 passing every check"
    assert lines[-1].strip() == "30/30 mutants graded, 10 passing every check"


def test_the_report_shows_the_score_and_each_survivor_as_a_diff_with_the_checks_it_passed(
    make_exercise: Callable[..., Path],
) -> None:
    analysis = analyse(weak_exercise(make_exercise, "\n[mutation]\nminimum = 0.9\n"))
    console, out = plain_console()
    print_analysis(analysis, console)
    lines = [line.rstrip() for line in out.getvalue().splitlines()]
    assert lines[0].startswith(
        "  ✗ mutation score 0.66 (at least 0.90 required): 2 of 3 mutants killed, 0 accepted as equivalent "
        "(3 graded in "
    )
    assert "      the score 0.66 is below the minimum 0.90" in lines
    assert f"      survivor {SURVIVOR}" in lines
    assert "        passed two_and_two" in lines
    assert "        --- reference.py" in lines
    assert "        -    return a + b" in lines
    assert "        +    return a * b" in lines
    result = finding(analysis)
    assert (result.name, result.ok) == ("mutation score at least 0.90", False)
    assert f"survives: {SURVIVOR}" in result.message


def test_stale_and_refuted_acceptances_are_reported(make_exercise: Callable[..., Path]) -> None:
    table = (
        '\n[mutation.equivalent]\n"number@L3: 1 -> 2" = "gone"\n'
        '"arithmetic@L2: a + b -> a - b" = "wrongly believed equivalent"\n'
    )
    analysis = analyse(weak_exercise(make_exercise, table))
    console, out = plain_console()
    print_analysis(analysis, console)
    text = out.getvalue()
    assert "(no minimum set)" in text
    assert "stale: [mutation.equivalent] accepts 'number@L3: 1 -> 2', which no mutant has any more" in text
    assert (
        "not equivalent: [mutation.equivalent] accepts 'arithmetic@L2: a + b -> a - b', but two_and_two kills it"
        in text
    )
    assert not finding(analysis).ok
