"""``mlkata check``: does an exercise hold together? For authors and CI.

An exercise is sound when it loads, its statement renders (every math span typeset by KaTeX), its
reference solution passes every check, its try example (what "Try it" starts with) runs on the
reference, its starter does not pass, and every known-wrong solution (mutant) fails, is caught by
the checks it names and is named as its own mistake (so a student making it is told so, with its
hint), and no hidden check's message shows the check's inputs or expected values on any of them.
All solutions run through the real grader, the try example through the real "Try it". A check
that crashes is reported with its traceback, which students never see.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from grader.authoring.katex import KatexUnavailable, math_problems
from grader.exercise import Exercise
from grader.grading import grade, try_solution
from grader.results import CheckResult, GradeResult, Reason, Status, tracebacks

#: The name of the finding that the reference passes (whether later steps can trust it).
REFERENCE_PASSES = "reference solution passes every check"


@dataclass(frozen=True)
class Finding:
    """One verified property of an exercise."""

    exercise: str
    name: str
    ok: bool
    message: str
    seconds: float


def verify_exercise(
    exercise: Exercise, *, jailed: bool = True, reference_only: bool = False, math: list[str] | None = None
) -> list[Finding]:
    """Every property of the exercise, or with ``reference_only`` the statement and the reference alone
    (graded, and running the try example).

    ``math`` is the statement's TeX errors when the caller typeset many statements at once
    (:func:`grader.authoring.katex.math_problems`); without it the statement is typeset here.
    """
    findings = [_statement(exercise, math)]
    reference_source = exercise.reference
    reference, crashes = _graded(exercise, reference_source, jailed)
    findings.append(
        Finding(
            exercise.slug,
            REFERENCE_PASSES,
            reference.status is Status.PASS,
            _summary(reference, crashes),
            reference.duration_ms / 1000,
        )
    )
    findings.append(_try_example(exercise, reference_source, jailed))
    if reference_only:
        return findings
    starter, crashes = _graded(exercise, exercise.starter, jailed)
    findings.append(
        Finding(
            exercise.slug,
            "starter does not pass",
            starter.status is not Status.PASS and not _internal_errors(starter),
            _summary(starter, crashes),
            starter.duration_ms / 1000,
        )
    )
    graded = [("the starter", starter)]
    for name, path in exercise.mutant_paths().items():  # a diff's, applied
        spec = exercise.config.mutants[name]
        result, crashes = _graded(exercise, path.read_text(encoding="utf-8"), jailed)
        graded.append((f"mutant {name}", result))
        failing = {t.id for t in result.failing()}
        problems = []
        if result.status is Status.PASS:
            problems.append("it passes every check")
        missed = [c for c in spec.caught_by if c not in failing]
        if missed:
            problems.append(f"these checks should fail but pass: {', '.join(missed)}")
        named = result.mistake.id if result.mistake is not None else None
        if result.status is not Status.PASS and spec.unnamed and named is not None:
            problems.append(f"it is never named ({spec.unnamed}), yet its run names {named}")
        elif result.status is not Status.PASS and not spec.unnamed and named != name:
            problems.append(
                f"its answers are not named as its own mistake (the run names {named or 'no known mistake'}): "
                "give the checks inputs on which it differs from the other mutants"
            )
        problems += [f"check {t.id} crashed: {t.message}{crash_report(t, crashes)}" for t in _internal_errors(result)]
        findings.append(
            Finding(
                exercise.slug,
                f"mutant {name} fails ({spec.mistake})",
                not problems,
                "; ".join(problems) or f"caught by {', '.join(sorted(failing)) or result.reason.value}",
                result.duration_ms / 1000,
            )
        )
    findings.append(_hidden_checks_hide(exercise, graded))
    return findings


def _hidden_checks_hide(exercise: Exercise, graded: list[tuple[str, GradeResult]]) -> Finding:
    """No hidden check's message shows its values, on the starter or any mutant (the grader withholds those)."""
    shown = [
        f"check {t.id}, on {who}: {t.withheld_message}"
        for who, result in graded
        for t in result.tests
        if t.withheld_message
    ]
    message = "\n".join(shown[:5]) + (f"\n… and {len(shown) - 5} more" if len(shown) > 5 else "")
    if shown:
        message += "\nsay what differs without the values (the expect_* helpers do), and name cases, not inputs"
    return Finding(exercise.slug, "hidden checks' messages show none of their values", not shown, message, 0.0)


def _statement(exercise: Exercise, math: list[str] | None) -> Finding:
    started = time.monotonic()
    if math is None:
        try:
            math = math_problems({exercise.slug: exercise.statement_markdown})[exercise.slug]
        except KatexUnavailable as exc:
            math = [str(exc)]
    ok = bool(exercise.statement_html) and not math
    return Finding(exercise.slug, "statement renders", ok, "\n".join(math), time.monotonic() - started)


def _try_example(exercise: Exercise, reference: str, jailed: bool) -> Finding:
    """The try example run on the reference as "Try it" runs it: without an error, and a ``try_it`` showing a value.

    Without ``try_it`` the example is a comment per function, which shows nothing: it need only run.
    """
    own = bool(exercise.config.try_it.strip())
    label = "try_it" if own else "the try example"
    tried = try_solution(exercise, reference, exercise.try_example, jailed=jailed)
    said = (tried.message or tried.reason.value).replace("your inputs", label)  # the learner's words, for the author
    problem = None
    if tried.status is not Status.PASS:
        where = f"{label}, line {tried.failed.line}: {tried.failed.source}\n" if tried.failed else ""
        problem = where + said
    elif tried.message:  # it ran, but not all of it
        problem = said
    elif own and not tried.values:
        problem = "try_it shows no value: end it with expressions worth seeing (outputs, shapes)"
    name = "try_it runs on the reference and shows a value" if own else "try example runs on the reference"
    message = problem or f"shows {len(tried.values)} value(s)"
    return Finding(exercise.slug, name, problem is None, message, tried.duration_ms / 1000)


def _graded(exercise: Exercise, source: str, jailed: bool) -> tuple[GradeResult, dict[str, str]]:
    """The grade, and the traceback of each check that raised in it (the author's view)."""
    with tracebacks.collecting() as found:
        return grade(exercise, source, jailed=jailed), found


def crash_report(test: CheckResult, found: dict[str, str]) -> str:
    """For a check that crashed (a bug in it), its traceback, indented, after a newline; else nothing."""
    if test.reason is not Reason.INTERNAL_ERROR or test.id not in found:
        return ""
    return "\n  " + found[test.id].rstrip().replace("\n", "\n  ")


def _internal_errors(result: GradeResult) -> list[CheckResult]:
    return [t for t in result.tests if t.reason is Reason.INTERNAL_ERROR]


def _summary(result: GradeResult, found: dict[str, str]) -> str:
    lines = [f"{result.status.value}: {result.message or ''}"]
    lines += [f"{t.id}: {t.message}{crash_report(t, found)}" for t in result.failing()[:5]]
    return "\n".join(lines)
