"""Command-line grading: ``mlkata grade`` for a solution, ``mlkata check`` for whole exercises (and the
strength of their checks, with ``--mutation``), ``mlkata new`` for a new exercise folder."""

from __future__ import annotations

import enum
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape

from grader.authoring import verified
from grader.authoring.katex import KatexUnavailable, math_problems
from grader.authoring.terminal import print_result
from grader.authoring.verify import REFERENCE_PASSES, Finding, crash_report, verify_exercise
from grader.exercise import (
    DEFAULT_EXERCISES,
    BrokenExercise,
    Exercise,
    ExerciseError,
    exercise_folders,
    load_exercise,
    load_or_explain,
    roadmap_key,
)
from grader.grading import grade
from grader.results import Case, GradeResult, Reason, Status, cases_from_result, to_exercism, to_junit_xml, tracebacks
from grader.sandbox import SandboxUnavailable, examine, require_sandbox

EXIT_PASS, EXIT_FAIL, EXIT_USAGE = 0, 1, 2

app = typer.Typer(add_completion=False, no_args_is_help=True)
ExercisesOption = Annotated[
    Path,
    typer.Option("--exercises", envvar="MLKATA_EXERCISES_DIR", help="Folder holding the exercise folders."),
]
ColdOption = Annotated[
    bool, typer.Option("--cold", help="Start a fresh sandbox for the run instead of forking a pre-started one.")
]
TrustedOption = Annotated[
    bool, typer.Option("--trusted", help="Run without the sandbox. Only for files you wrote yourself.")
]


class ReportFormat(enum.StrEnum):
    """What ``mlkata grade`` prints."""

    TEXT = "text"  # a line per check, for a person
    JSON = "json"  # the results contract (grader/results/results.schema.json)
    EXERCISM = "exercism"  # exactly Exercism's test-runner results.json version 3


def _stderr() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def _usage_error(message: str) -> typer.Exit:
    _stderr().print(f"[bold red]error:[/] {escape(message)}")
    return typer.Exit(EXIT_USAGE)


def _load(exercises: Path, slug: str, *, mutants: bool = True) -> Exercise:
    path = exercises / slug
    if not (path / "exercise.toml").is_file():
        known = (
            sorted(p.name for p in exercises.glob("*") if (p / "exercise.toml").is_file()) if exercises.is_dir() else []
        )
        raise _usage_error(f"no exercise {slug!r} in {exercises} (known: {', '.join(known) or 'none'})")
    try:
        return load_exercise(path, mutants=mutants)
    except ExerciseError as exc:
        raise _usage_error(str(exc)) from None


def _require_sandbox(trusted: bool) -> None:
    if trusted:
        return
    try:
        require_sandbox()
    except SandboxUnavailable as exc:
        raise _usage_error(str(exc)) from None


@app.command("grade")
def grade_command(
    path: Annotated[Path, typer.Argument(help="The solution file to grade.")],
    exercise: Annotated[str, typer.Option("--exercise", "-e", help="The exercise's slug.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document (the results contract).")] = False,
    report: Annotated[
        ReportFormat | None,
        typer.Option(
            "--format",
            help="text: a line per check (the default); json: the results contract (as --json); "
            "exercism: exactly Exercism's test-runner results.json version 3.",
        ),
    ] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Also write a JUnit XML report here.")] = None,
    trusted: TrustedOption = False,
    cold: ColdOption = False,
    exercises: ExercisesOption = DEFAULT_EXERCISES,
) -> None:
    """Grade a solution. Exit 0 when every check passes, 1 when it fails, 2 on a usage or infrastructure problem."""
    if as_json and report not in (None, ReportFormat.JSON):
        raise _usage_error(f"--json prints the results contract: it cannot be combined with --format {report}")
    shown = ReportFormat.JSON if as_json else report or ReportFormat.TEXT
    loaded = _load(exercises, exercise)
    try:
        source = path.read_bytes()
    except OSError as exc:
        raise _usage_error(f"cannot read {path}: {exc.strerror}") from None
    _require_sandbox(trusted)
    with tracebacks.collecting() as crashes:
        result = grade(loaded, source, jailed=not trusted, warm=not cold)
    if junit is not None:
        junit.write_text(to_junit_xml(f"mlkata.{loaded.slug}", cases_from_result(result, loaded.slug)))
    if shown is ReportFormat.JSON:
        sys.stdout.write(json.dumps(result.to_json_dict(), ensure_ascii=False) + "\n")
    elif shown is ReportFormat.EXERCISM:
        sys.stdout.write(json.dumps(to_exercism(result), ensure_ascii=False) + "\n")
    else:
        print_result(result, Console(highlight=False, soft_wrap=True))
    # The author's view: where a check itself crashed. Students read only its message.
    console = Console(highlight=False, soft_wrap=True, stderr=shown is not ReportFormat.TEXT)
    for test in result.tests:
        crash = crash_report(test, crashes)
        if crash:
            console.print(f"[bold red]The check {escape(test.id)} raised[/] (shown to you, not to students):")
            console.print(escape(crash.removeprefix("\n")))
    raise typer.Exit(_exit_code(result))


def _exit_code(result: GradeResult) -> int:
    if result.status is Status.PASS:
        return EXIT_PASS
    if result.status is Status.ERROR and result.reason is Reason.INTERNAL_ERROR:
        return EXIT_USAGE  # the grader could not do its job: not the solution's failure
    return EXIT_FAIL


@app.command("check")
def check_command(
    slugs: Annotated[list[str] | None, typer.Argument(help="Exercises to check (default: all).")] = None,
    junit: Annotated[Path | None, typer.Option("--junit", help="Also write a JUnit XML report here.")] = None,
    mutation: Annotated[
        bool,
        typer.Option(
            "--mutation",
            help="Also grade mutants derived from each reference.py; fail when the mutation score is below "
            "the exercise's [mutation] minimum.",
        ),
    ] = False,
    reference_only: Annotated[
        bool,
        typer.Option(
            "--reference-only",
            help="Only load the exercise (without its mutants), typeset the statement, grade the reference and run "
            "the try example on it: for writing the checks before the mutants exist.",
        ),
    ] = False,
    changed: Annotated[
        bool,
        typer.Option(
            "--changed",
            help="Skip the exercises verified as sound (the same way) since they, the grader or the runner last "
            "changed: for an author's loop. Without it (as in CI) every exercise is verified.",
        ),
    ] = False,
    trusted: TrustedOption = False,
    exercises: ExercisesOption = DEFAULT_EXERCISES,
) -> None:
    """Verify exercises: they load, the statement's math typesets, the reference passes, the try example runs on
    it, the starter and every mutant fail (and, with --mutation, the checks kill enough mutants derived from the
    reference)."""
    from grader.authoring.mutation import (
        analyse_and_report,  # libcst and the analysis: only the checks of exercises need them
    )

    if mutation and reference_only:
        raise _usage_error("--mutation grades mutants of the reference: it cannot be combined with --reference-only")
    _require_sandbox(trusted)
    console = Console(highlight=False, soft_wrap=True)
    modes = verified.modes(mutation=mutation, reference_only=reference_only, trusted=trusted)
    loaded = _load_for_check(exercises, slugs or [], mutants=not reference_only)
    unchanged = {e.slug for e in loaded if verified.holds(e, modes[0])} if changed else set()
    for slug in sorted(unchanged):
        console.print(f"[bold]{escape(slug)}[/] [dim]unchanged since verified: skipped[/]")
    loaded = [e for e in loaded if e.slug not in unchanged]
    try:  # one node process for the math of every statement
        math = math_problems({exercise.slug: exercise.statement_markdown for exercise in loaded})
    except KatexUnavailable as exc:
        math = {exercise.slug: [str(exc)] for exercise in loaded}
    findings: list[Finding] = []
    for exercise in loaded:
        console.print(f"[bold]{escape(exercise.slug)}[/]")
        for warning in _whole_copies(exercise):
            console.print(f"  [yellow]![/] {escape(warning)}")
        found = verify_exercise(exercise, jailed=not trusted, reference_only=reference_only, math=math[exercise.slug])
        for finding in found:
            mark = "[green]✓[/]" if finding.ok else "[red]✗[/]"
            console.print(f"  {mark} {escape(finding.name)} [dim]({finding.seconds:.2f} s)[/]")
            if not finding.ok:
                console.print("      " + escape(finding.message).replace("\n", "\n      "))
        if mutation:
            passes = all(f.ok for f in found if f.name == REFERENCE_PASSES)
            found.append(analyse_and_report(exercise, console, jailed=not trusted, reference_passes=passes))
        findings += found
        if all(f.ok for f in found):
            verified.record(exercise, modes)
    if junit is not None:
        cases = [Case(f.name, f"mlkata.check.{f.exercise}", f.seconds, None if f.ok else f.message) for f in findings]
        junit.write_text(to_junit_xml("mlkata.check", cases))
    bad = [f for f in findings if not f.ok]
    skipped = f", {len(unchanged)} unchanged skipped" if unchanged else ""
    console.print(f"{len(findings) - len(bad)}/{len(findings)} properties hold in {len(loaded)} exercise(s){skipped}")
    raise typer.Exit(EXIT_FAIL if bad else EXIT_PASS)


def _whole_copies(exercise: Exercise) -> list[str]:
    """A warning for each mutant written as a whole copy of the reference: an edit of the reference leaves it behind."""
    return [
        f"mutants/{name}.py copies reference.py whole, so it does not follow an edit of the reference: write it as "
        f"mutants/{name}.diff (diff -u reference.py mutants/{name}.py > mutants/{name}.diff)"
        for name in exercise.config.mutants
        if exercise.mutant_file(name).suffix == ".py"
    ]


def _load_for_check(exercises: Path, slugs: list[str], *, mutants: bool) -> list[Exercise]:
    """The exercises named (default: all); a usage error listing every one that does not load, with why."""
    if slugs:
        return [_load(exercises, slug, mutants=mutants) for slug in slugs]
    outcomes = [load_or_explain(folder, mutants=mutants) for folder in exercise_folders(exercises)]
    broken = [str(o.error) for o in outcomes if isinstance(o, BrokenExercise)]
    if broken:
        raise _usage_error("\n".join(broken))
    loaded = [o for o in outcomes if isinstance(o, Exercise)]
    return sorted(loaded, key=roadmap_key)


@app.command("new")
def new_command(
    slug: Annotated[str, typer.Argument(help="The new exercise's slug: lowercase words joined by '-'.")],
    title: Annotated[str, typer.Option("--title", help="Its title, on the roadmap and its page.")],
    section: Annotated[str, typer.Option("--section", help="The roadmap section it belongs to.")],
    exercises: ExercisesOption = DEFAULT_EXERCISES,
) -> None:
    """Create a new exercise folder: a working example that `mlkata check` accepts, to replace file by file."""
    from grader.authoring.scaffold import ScaffoldError, new_exercise, next_steps

    try:
        folder = new_exercise(exercises, slug, title=title, section=section)
    except ScaffoldError as exc:
        raise _usage_error(str(exc)) from None
    read_by_default = Path(os.environ.get("MLKATA_EXERCISES_DIR") or DEFAULT_EXERCISES)
    default = exercises.resolve() == read_by_default.resolve()
    # As the author typed it (.venv/bin/mlkata) when that is not the mlkata on the PATH.
    program = sys.argv[0] if Path(sys.argv[0]).name == "mlkata" and shutil.which("mlkata") is None else "mlkata"
    Console(highlight=False, soft_wrap=True).print(escape(next_steps(folder, program=program, default_folder=default)))


@app.command("doctor")
def doctor_command() -> None:
    """Show which sandbox protections are active on this host. Exit 1 if a required one is missing."""
    console = Console(highlight=False, soft_wrap=True)
    protections = examine()
    for protection in protections:
        mark = "[green]✓[/]" if protection.active else "[red]✗[/]" if protection.required else "[yellow]–[/]"
        console.print(f"{mark} {escape(protection.name)} [dim]({escape(protection.detail)})[/]")
    missing = [p for p in protections if p.required and not p.active]
    if missing:
        console.print(f"[bold red]{len(missing)} required protection(s) missing:[/] untrusted code must not run here.")
    else:
        console.print("[bold green]Every required protection is active.[/]")
    raise typer.Exit(EXIT_FAIL if missing else EXIT_PASS)
