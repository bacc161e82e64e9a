"""``mlkata check --mutation`` for one exercise: progress while the mutants are graded, then the score,
every surviving mutant as a diff against the reference, and what the ``[mutation]`` table got wrong.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text

from grader.authoring.mutation.analysis import Analysis, Outcome, analyse
from grader.authoring.mutation.derivations import derived_mutants
from grader.authoring.mutation.mutants import MutationError
from grader.authoring.verify import Finding
from grader.exercise import Exercise

INDENT = "      "


def floored(score: float) -> str:
    """The score to two decimals, rounded down: 0.899 is shown as 0.89, never as a passing 0.90."""
    return f"{math.floor(score * 100 + 1e-9) / 100:.2f}"


@contextmanager
def progress(console: Console, total: int) -> Iterator[Callable[[Outcome], None]]:
    """A callback to call as each mutant is graded: a live bar on a terminal, else a line every tenth."""
    if console.is_terminal:
        columns = (TextColumn("    grading mutants"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task("mutants", total=total)
            yield lambda outcome: bar.advance(task)
        return
    done, surviving, step = 0, 0, max(1, math.ceil(total / 10))

    def advance(outcome: Outcome) -> None:
        nonlocal done, surviving
        done += 1
        surviving += not outcome.killed
        if done % step == 0 or done == total:
            console.print(f"    [dim]{done}/{total} mutants graded, {surviving} passing every check[/]")

    yield advance


def summary(analysis: Analysis) -> str:
    """``mutation score 0.91 (at least 0.90 required): 62 of 68 mutants killed, 6 accepted as equivalent``."""
    if analysis.problem:
        return "mutation analysis"
    counted = len(analysis.killed) + len(analysis.survivors)
    required = f"at least {analysis.minimum:.2f} required" if analysis.minimum else "no minimum set"
    return (
        f"mutation score {floored(analysis.score)} ({required}): {len(analysis.killed)} of {counted} mutants "
        f"killed, {len(analysis.equivalent)} accepted as equivalent"
    )


def problems(analysis: Analysis) -> list[str]:
    """Everything that makes the analysis fail, one line each."""
    found = [analysis.problem] if analysis.problem else []
    if analysis.problem is None and analysis.score < analysis.minimum:
        found.append(f"the score {floored(analysis.score)} is below the minimum {analysis.minimum:.2f}")
    found += [f"survives: {o.mutant.id}" for o in analysis.survivors if analysis.score < analysis.minimum]
    found += [f"stale: [mutation.equivalent] accepts {i!r}, which no mutant has any more" for i in analysis.stale]
    found += [
        f"not equivalent: [mutation.equivalent] accepts {o.mutant.id!r}, but "
        f"{', '.join(t.id for t in o.result.failing()) or o.result.reason.value} kills it"
        for o in analysis.refuted
    ]
    found += [f"not graded: {o.mutant.id}: {o.result.message}" for o in analysis.ungraded]
    return found


def finding(analysis: Analysis) -> Finding:
    name = f"mutation score at least {analysis.minimum:.2f}"
    return Finding(analysis.exercise, name, analysis.ok, "\n".join(problems(analysis)), analysis.seconds)


def print_diff(console: Console, diff: str) -> None:
    for line in diff.splitlines():
        style = "green" if line.startswith("+") else "red" if line.startswith("-") else "dim"
        console.print(Text(INDENT + "  " + line, style=style))


def print_analysis(analysis: Analysis, console: Console) -> None:
    mark = "[green]✓[/]" if analysis.ok else "[red]✗[/]"
    timing = f"{len(analysis.outcomes)} graded in {analysis.seconds:.1f} s, {analysis.workers} at a time"
    console.print(f"  {mark} {escape(summary(analysis))} [dim]({timing})[/]")
    for line in problems(analysis):
        if not line.startswith("survives: "):
            console.print(INDENT + escape(line))
    for outcome in analysis.survivors:
        console.print(f"{INDENT}[yellow]survivor[/] {escape(outcome.mutant.id)}")
        console.print(f"{INDENT}  [dim]passed {escape(', '.join(outcome.passed_checks))}[/]")
        print_diff(console, outcome.mutant.diff(analysis.reference))
    crashed = [o for o in analysis.outcomes if o.crashed_checks]
    for outcome in crashed:
        checks = ", ".join(outcome.crashed_checks)
        console.print(
            f"{INDENT}[yellow]note[/] {escape(checks)} crashed (internal_error) on {escape(outcome.mutant.id)}"
        )


def analyse_and_report(
    exercise: Exercise, console: Console, *, jailed: bool = True, reference_passes: bool | None = None
) -> Finding:
    """Derive, grade and report the mutants of ``exercise``'s reference; the finding for ``mlkata check``.

    ``reference_passes``: whether the reference passed when the caller graded it (it is not graded again).
    """
    try:
        derived = derived_mutants(exercise.reference)
    except MutationError as exc:
        console.print(f"  [red]✗[/] mutation analysis\n{INDENT}{escape(str(exc))}")
        return Finding(exercise.slug, "mutation analysis", False, str(exc), 0.0)
    left_out = f"{derived.not_compiling} not compiling and {derived.duplicates} duplicates left out"
    console.print(f"  [dim]mutation analysis: {len(derived.mutants)} mutants of reference.py ({left_out})[/]")
    with progress(console, len(derived.mutants)) as advance:
        analysis = analyse(exercise, derived, jailed=jailed, on_outcome=advance, reference_passes=reference_passes)
    print_analysis(analysis, console)
    return finding(analysis)
