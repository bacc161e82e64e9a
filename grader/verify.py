"""``mlkata check``: does an exercise hold together? For authors and CI.

An exercise is sound when it loads, its statement renders, its reference solution passes every
check, its starter does not pass, and every known-wrong solution (mutant) fails, is caught by the
checks it names and is named as its own mistake (so a student making it is told so, with its
hint). All solutions run through the real grader.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.exercise import Exercise
from grader.grading import grade
from grader.results import CheckResult, GradeResult, Reason, Status


@dataclass(frozen=True)
class Finding:
    """One verified property of an exercise."""

    exercise: str
    name: str
    ok: bool
    message: str
    seconds: float


def verify_exercise(exercise: Exercise, *, jailed: bool = True) -> list[Finding]:
    findings = [Finding(exercise.slug, "statement renders", bool(exercise.statement_html), "", 0.0)]

    reference = grade(exercise, exercise.reference_path.read_text(encoding="utf-8"), jailed=jailed)
    findings.append(
        Finding(
            exercise.slug,
            "reference solution passes every check",
            reference.status is Status.PASS,
            _summary(reference),
            reference.duration_ms / 1000,
        )
    )
    starter = grade(exercise, exercise.starter, jailed=jailed)
    findings.append(
        Finding(
            exercise.slug,
            "starter does not pass",
            starter.status is not Status.PASS and not _internal_errors(starter),
            _summary(starter),
            starter.duration_ms / 1000,
        )
    )
    for name, path in exercise.mutant_paths().items():
        spec = exercise.config.mutants[name]
        result = grade(exercise, path.read_text(encoding="utf-8"), jailed=jailed)
        failing = {t.id for t in result.failing()}
        problems = []
        if result.status is Status.PASS:
            problems.append("it passes every check")
        missed = [c for c in spec.caught_by if c not in failing]
        if missed:
            problems.append(f"these checks should fail but pass: {', '.join(missed)}")
        named = result.mistake.id if result.mistake is not None else None
        if result.status is not Status.PASS and named != name:
            problems.append(
                f"its answers are not named as its own mistake (the run names {named or 'no known mistake'}): "
                "give the checks inputs on which it differs from the other mutants"
            )
        problems += [f"check {t.id} crashed: {t.message}" for t in _internal_errors(result)]
        findings.append(
            Finding(
                exercise.slug,
                f"mutant {name} fails ({spec.mistake})",
                not problems,
                "; ".join(problems) or f"caught by {', '.join(sorted(failing)) or result.reason.value}",
                result.duration_ms / 1000,
            )
        )
    return findings


def _internal_errors(result: GradeResult) -> list[CheckResult]:
    return [t for t in result.tests if t.reason is Reason.INTERNAL_ERROR]


def _summary(result: GradeResult) -> str:
    lines = [f"{result.status.value}: {result.message or ''}"]
    lines += [f"{t.id}: {t.message}" for t in result.failing()[:5]]
    return "\n".join(lines)
