"""Grade one solution: load it in the sandbox, run every check, decide the verdict.

Everything that decides the verdict happens here, in the trusted process. What the solution
prints, how its process exits and anything it writes are only evidence for messages (which
:mod:`grader.grading.verdicts` words).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grader.exercise import Check, Exercise
from grader.grading import verdicts
from grader.grading.budget import BudgetExceeded
from grader.grading.check_run import Checked, LoadFailed, checked, with_pattern
from grader.grading.mistakes import ABOUT_THE_ANSWERS, OutOfTime, allowance, matching, name_mistakes
from grader.grading.proxy import Student
from grader.grading.runs import Runs, Stop
from grader.results import (
    MESSAGE_CHARS,
    OUTPUT_CHARS,
    CheckFinished,
    CheckResult,
    EventSink,
    Finished,
    GradeResult,
    OutputProduced,
    Reason,
    Started,
    Status,
    cap_text,
    fit_result,
    messages,
)
from grader.sandbox import SandboxUnavailable

log = logging.getLogger(__name__)


def grade(
    exercise: Exercise,
    source: str | bytes,
    *,
    jailed: bool = True,
    warm: bool = True,
    on_event: EventSink | None = None,
    stop: Stop | None = None,
) -> GradeResult:
    """Grade ``source`` (the text of ``solution.py``) against ``exercise``'s checks.

    ``warm`` forks the run from a pre-started sandboxed runner (the cold path starts a new sandbox);
    ``jailed=False`` runs without any sandbox, for an instructor's own files. ``stop`` ends it
    early, with the verdict ``stopped``.
    """
    emit = on_event or (lambda event: None)
    started = time.monotonic()
    result = _grade(exercise, source, jailed, warm, emit, stop or Stop())
    result.duration_ms = round((time.monotonic() - started) * 1000, 1)
    result = fit_result(result)
    emit(Finished(result=result))
    return result


def grade_until_failure(
    exercise: Exercise, source: str | bytes, first: Sequence[str] = (), *, jailed: bool = True, warm: bool = True
) -> GradeResult:
    """Whether ``source`` passes every check, found as cheaply as the real grader can: for mutation analysis.

    The checks whose ids are in ``first`` run first, in that order, then the others in the exercise's;
    the run stops at the first check that does not pass, whose result is the last of ``tests``. No
    mistake is named and no symptom sought (a killed mutant needs neither). Same sandbox, same limits.
    """
    by_id = {c.id: c for c in exercise.checks}
    ahead = [by_id[i] for i in dict.fromkeys(first) if i in by_id]
    checks = [*ahead, *(c for c in exercise.checks if c not in ahead)]
    started = time.monotonic()
    plan = _Plan(checks, until_failure=True)
    result = _grade(exercise, source, jailed, warm, lambda event: None, Stop(), plan)
    result.duration_ms = round((time.monotonic() - started) * 1000, 1)
    return fit_result(result)


@dataclass(frozen=True)
class _Plan:
    """Which checks a grading runs, in what order, and whether it ends at the first failure (undiagnosed)."""

    checks: Sequence[Check]
    until_failure: bool = False


def validate_source(source: str | bytes, max_bytes: int) -> tuple[str, str | None]:
    """Return the source as text, or a message saying why it cannot be graded."""
    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    return messages.source_problem(raw, max_bytes)


def _grade(
    exercise: Exercise,
    source: str | bytes,
    jailed: bool,
    warm: bool,
    emit: EventSink,
    stop: Stop,
    plan: _Plan | None = None,
) -> GradeResult:
    plan = plan or _Plan(exercise.checks)
    max_points = float(sum(c.points for c in exercise.checks))

    def error(reason: Reason, message: str, **extra: Any) -> GradeResult:
        return GradeResult(
            status=Status.ERROR, reason=reason, message=cap_text(message, MESSAGE_CHARS), exercise=exercise.slug,
            max_points=max_points, **extra,
        )  # fmt: skip

    text, problem = validate_source(source, exercise.limits.source_kb * 1024)
    if problem is not None:
        return error(Reason.INVALID_SOURCE, problem)

    runs = Runs(exercise, text, jailed, warm, stop, diagnose=not plan.until_failure)
    try:
        try:
            runs.current()
        except LoadFailed as failure:
            if stop.requested:
                return stopped_result(exercise, [])
            output = cap_text(runs.take_output(), OUTPUT_CHARS) or None
            return error(failure.reason, failure.message, location=failure.location, output=output)
        except SandboxUnavailable as exc:
            log.error("sandbox unavailable for %s: %s", exercise.slug, exc)
            return error(Reason.INTERNAL_ERROR, messages.sandbox_unavailable(exc))
        load_output = cap_text(runs.take_output(), OUTPUT_CHARS)
        emit(Started(checks=[c.title for c in exercise.checks]))
        if load_output:
            emit(OutputProduced(text=load_output))
        tests = _run_checks(exercise, runs, emit, plan)
    finally:
        runs.close()

    if stop.requested:
        return stopped_result(exercise, tests, output=load_output or None)
    failing = [t for t in tests if t.status is not Status.PASS]
    lead = name_mistakes(exercise, tests, runs.matches, runs.mistakes() if runs.matches else [])
    common = {
        "tests": tests, "exercise": exercise.slug, "points": float(sum(t.points for t in tests)),
        "max_points": max_points, "output": load_output or None, "output_truncated": runs.output_truncated,
    }  # fmt: skip
    if not failing:
        return GradeResult(status=Status.PASS, reason=Reason.PASSED, message=messages.all_passed(len(tests)), **common)
    worst = next((t for t in failing if t.reason in verdicts.ABOUT_THE_RUN), failing[0])
    message = messages.some_failed(len(failing), len(tests))
    if worst.reason is Reason.TIMEOUT:
        message = messages.timed_out_in([t.name for t in tests if t.reason is Reason.TIMEOUT], message)
    return GradeResult(status=Status.FAIL, reason=worst.reason, message=message, mistake=lead, **common)


def stopped_result(exercise: Exercise, finished: list[CheckResult], *, output: str | None = None) -> GradeResult:
    """The verdict of a run its learner stopped: the checks that finished, the one it was in, the rest not run."""
    tests = [t for t in finished if t.reason not in (Reason.NOT_RUN, Reason.STOPPED)]
    done = {t.id for t in tests}
    current: str | None = None
    for check in exercise.checks:
        if check.id in done:
            continue
        if current is None:
            current = check.title
            message, reason = messages.stopped_during(), Reason.STOPPED
        else:
            message, reason = messages.not_run(Reason.STOPPED), Reason.NOT_RUN
        tests.append(CheckResult(
            name=check.title, id=check.id, status=Status.ERROR, reason=reason, message=message,
            public=check.public, points=0, duration_ms=0,
        ))  # fmt: skip
    order = {check.id: n for n, check in enumerate(exercise.checks)}
    tests.sort(key=lambda t: order.get(t.id, len(order)))
    return GradeResult(
        status=Status.ERROR, reason=Reason.STOPPED, message=messages.stopped(current), exercise=exercise.slug,
        tests=tests, points=float(sum(t.points for t in tests)),
        max_points=float(sum(c.points for c in exercise.checks)), output=output,
    )  # fmt: skip


def _run_checks(exercise: Exercise, runs: Runs, emit: EventSink, plan: _Plan) -> list[CheckResult]:
    """Every check of the plan in order, each reported as it finishes; after one that ends the run, the rest are
    not run (with ``until_failure``, none runs after the first that does not pass).

    A timeout is the exception: the checks after it run in a fresh run with a time budget of its
    own, where a call of the function that ran out of time is refused (those checks are "not run"),
    so the checks of the other functions still give their verdicts. A second timeout ends it all.
    """
    tests: list[CheckResult] = []
    stopped_by: Reason | None = None
    first_raised: dict[str, str] = {}  # how a check raised (verdicts.raised_where) → the first check that did
    for index, check in enumerate(plan.checks):
        if runs.stop.requested or (plan.until_failure and tests and tests[-1].status is not Status.PASS):
            break
        if stopped_by is not None:
            outcome = CheckResult(
                name=check.title, id=check.id, status=Status.ERROR, reason=Reason.NOT_RUN,
                message=messages.not_run(stopped_by), public=check.public, points=0, duration_ms=0,
            )  # fmt: skip
        else:
            outcome, ends_run, last_call = _run_check(exercise, check, runs, first_raised)
            if runs.stop.requested:
                break
            if ends_run and outcome.reason is Reason.TIMEOUT and runs.refused is None and last_call is not None:
                runs.refuse(last_call, check.title)
                if index + 1 < len(plan.checks) and len(exercise.function_names) > 1:
                    _say_what_follows(
                        outcome,
                        messages.goes_on_after_timeout(outcome.message or "", last_call, exercise.limits.time_seconds),
                    )
            elif ends_run:
                stopped_by = outcome.reason
                if outcome.reason is Reason.TIMEOUT and runs.refused is not None:
                    _say_what_follows(outcome, messages.timed_out_again(outcome.message or "", runs.refused[0]))
        tests.append(outcome)
        emit(CheckFinished(index=index, check=outcome))
        if outcome.output:
            emit(OutputProduced(text=outcome.output))
        elif outcome.printed:
            emit(OutputProduced(text=messages.hidden_output_note(outcome)))
    return tests


def _say_what_follows(outcome: CheckResult, message: str) -> None:
    """A timeout's message, saying what the run does next: the checks left may run on past its time limit."""
    outcome.message = cap_text(message, MESSAGE_CHARS)


def _diagnosed(outcome: Checked, exercise: Exercise, check: Check, student: Student, runs: Runs) -> Checked:
    """A failure with what its calls say about its mistake: the known mistakes it matches, and its symptom.

    Outside the checks' budget, within the diagnosis's own allowance for the run: diagnosing never
    fails a run, and past the allowance it concludes nothing (no match, no symptom).
    """
    reason = outcome.verdict.reason
    if reason not in ABOUT_THE_ANSWERS or not runs.diagnose:
        return outcome
    suspects = runs.suspects()  # derived once per exercise version: a cost of its own, not of this run's diagnosis
    began = time.thread_time()
    try:
        with allowance(runs.diagnosis_left):
            found = (
                matching(suspects, exercise.reference_code, student.log.calls, runs.history, exercise.answer_forms)
                if suspects
                else []
            )
            runs.matches[check.id] = found
            if reason is Reason.WRONG_ANSWER and outcome.symptom is None:
                outcome = with_pattern(outcome, exercise, student.log.calls)
    except OutOfTime:
        runs.matches.setdefault(check.id, [])  # unknown, so no mistake explains this check: none can lead
    finally:
        runs.diagnosis_left -= time.thread_time() - began
    return outcome


def _run_check(
    exercise: Exercise, check: Check, runs: Runs, first_raised: dict[str, str]
) -> tuple[CheckResult, bool, str | None]:
    """Run one check; return its result, whether the run must stop, and the function it called last.

    ``first_raised`` is the first check to fail each way an exception was raised; a check failing
    the same way points at it (``same_as``), and a check that is the first is added to it.
    """
    refused = {runs.refused[0]: runs.refused[1]} if runs.refused else {}
    student = Student(exercise.function_names, runs.current, runs.budget.crossing, refused=refused)
    began = time.monotonic()
    try:
        with runs.budget.watching():
            outcome = checked(exercise, check, student)
    except BudgetExceeded:
        outcome = Checked(verdicts.budget_spent(check, exercise.limits))
    outcome = _diagnosed(outcome, exercise, check, student, runs)
    runs.history += student.log.calls
    verdict, hint_id = outcome.verdict, outcome.hint
    duration = round((time.monotonic() - began) * 1000, 2)
    output = runs.take_output()
    shown = cap_text(output, OUTPUT_CHARS) or None
    result = CheckResult(
        name=check.title, id=check.id, status=verdict.status, reason=verdict.reason,
        message=cap_text(verdict.message, MESSAGE_CHARS) or None,
        output=shown if check.public else None, hidden_output=None if check.public else shown,
        printed=bool(output), public=check.public,
        points=check.points if verdict.status is Status.PASS else 0, duration_ms=duration,
        hint=exercise.hint_text(hint_id), hint_id=hint_id, hint_levels=len(exercise.hint_levels(hint_id)),
        details=outcome.details, location=outcome.location, symptom=outcome.symptom,
        withheld_message=cap_text(outcome.withheld, MESSAGE_CHARS),
        same_as=first_raised.get(outcome.raised) if outcome.raised else None,
    )  # fmt: skip
    if outcome.raised:
        first_raised.setdefault(outcome.raised, check.id)
    last = student.log.last()
    return result, verdict.ends_run, last[0] if last else None
