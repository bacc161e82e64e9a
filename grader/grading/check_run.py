"""One check run against a solution: its verdict, and what goes with it on the result.

:func:`checked` calls the check and turns what happened (a pass, a wrong answer, an exception of
the solution, a refusal, a runner that died, a bug in the check) into a verdict with its hint,
public details, the line that raised and the symptom; :func:`with_pattern` adds what the check's
calls show together (:mod:`grader.grading.mistakes.across`) when the compared value shows nothing. What a hidden check
says carries nothing the solution wrote and none of the check's values.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.exercise import Check, Exercise
from grader.grading import verdicts
from grader.grading.checking import checking
from grader.grading.failures import CheckFailed
from grader.grading.leaks import leaks
from grader.grading.mistakes import symptom_across
from grader.grading.proxy import Call, CallRefused, Student
from grader.grading.session import SolutionRaised, UnsupportedValue
from grader.grading.symptoms import shown_apart
from grader.grading.verdicts import Verdict
from grader.results import Location, Reason, Status, cap_text, messages, show_value, tracebacks
from grader.sandbox import Ending, RunnerDied

log = logging.getLogger(__name__)


class LoadFailed(Exception):
    """Loading the solution in a new runner failed: the reason, the message and where."""

    def __init__(self, reason: Reason, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.reason, self.message, self.location = reason, message, location


def with_pattern(outcome: Checked, exercise: Exercise, calls: list[Call]) -> Checked:
    """A failure whose compared value shows no symptom, with what the check's calls show together, if anything."""
    try:
        found = symptom_across(exercise.reference_code, calls)
    except Exception:  # a failure without a symptom is still true; a crash here would be the grader's
        log.exception("diagnosing the calls of a failing check of %s failed", exercise.slug)
        return outcome
    if found is None:
        return outcome
    said = f"{outcome.verdict.message}\n{found.sentence}"
    verdict = Verdict(outcome.verdict.status, outcome.verdict.reason, said, outcome.verdict.ends_run)
    return dataclasses.replace(outcome, verdict=verdict, symptom=found.kind)


@dataclass
class Checked:
    """What a check gave: its verdict, and what goes with it on the result."""

    verdict: Verdict
    hint: str | None = None
    details: dict[str, str] | None = None
    location: Location | None = None  # the line of solution.py that raised
    symptom: str | None = None
    withheld: str | None = None  # a hidden check's own message, when it showed the check's values
    raised: str | None = None  # which function raised what where (verdicts.raised_where): the same failure if equal


def checked(exercise: Exercise, check: Check, student: Student) -> Checked:
    """Call the check and say what it gave.

    A hint is advice about the solution's logic: it goes with wrong answers and exceptions only,
    never with limits, crashes or sandbox refusals. In a hidden check nothing the solution says
    (an exception's message, a traceback, a value it returned) reaches the message, its inputs
    would through it; and a message of the check's own that shows its values is withheld.
    """
    limits, public = exercise.limits, check.public
    try:
        with checking(public=public, log=student.log, params=exercise.parameters):
            check.function(student)
        return Checked(verdicts.PASSED)
    except CheckFailed as failed:
        hint = failed.hint if isinstance(failed.hint, str | None) else check.hint  # CHECK_HINT: the check's
        verdict = Verdict(Status.FAIL, Reason.WRONG_ANSWER, failed.message)
        symptom = failed.symptom.kind if failed.symptom else None
        if public:
            details = _public_details(student, failed.expected, failed.got)
            return Checked(verdict, hint, details, symptom=symptom)
        shown = leaks(failed.message, exercise.function_names, student.log.calls, failed.expected, failed.got)
        if shown:
            log.error("hidden check %s of %s shows %s in its message", check.id, exercise.slug, "; ".join(shown))
            said = messages.withheld_message(failed.symptom.sentence if failed.symptom else None)
            verdict = Verdict(Status.FAIL, Reason.WRONG_ANSWER, said)
            return Checked(verdict, hint, symptom=symptom, withheld=failed.message)
        return Checked(verdict, hint, symptom=symptom)
    except SolutionRaised as exc:
        # No hint of the check's for an exception: only a known mistake that raises the same names one.
        verdict = verdicts.raised(exc, _current_call(student), limits, public=public)
        location = Location(line=exc.line) if exc.line else None
        way = verdicts.raised_where(exc, _current_call(student)) if verdict.reason is Reason.RAISED else None
        return Checked(
            verdict, details=_public_details(student, None, None) if public else None, location=location, raised=way
        )
    except CallRefused as refused:
        return Checked(verdicts.refused_after_timeout(refused.function, refused.timed_out_in))
    except UnsupportedValue as exc:
        return Checked(verdicts.unsupported(_current_call(student), exc.detail if public else None))
    except RunnerDied as died:
        if died.ending is Ending.STOPPED:
            return Checked(verdicts.stopped())
        return Checked(verdicts.died(died, f"during {_current_call(student)}", limits, public=public))
    except LoadFailed as failure:  # a restart after a crash failed to load again
        return Checked(verdicts.reload_failed(failure.reason, failure.message))
    except Exception as exc:  # noqa: BLE001  (a bug in the check itself; never the student's fault)
        tracebacks.record(check.id, exc)  # for the author's view (mlkata grade, mlkata check), if it asks
        return Checked(verdicts.check_bug(exc, cap_text(str(exc), 300) or ""))


def _current_call(student: Student) -> str:
    last = student.log.last()
    return f"{last[0]}()" if last else "the solution"


def _public_details(student: Student, expected: Any, got: Any) -> dict[str, str]:
    """The call a failure is about, its expected value and the solution's: never another call's.

    The call is the one whose answer holds ``got`` (or the one that raised, the log's last); a check
    that made one call can only be about it. Otherwise no call is shown.
    """
    details: dict[str, str] = {}
    calls = student.log.calls
    call = student.log.call_of(got) if got is not None else None
    if call is None and (len(calls) == 1 or (got is None and expected is None and calls and calls[-1].raised)):
        call = calls[-1]
    if call is not None:
        details["call"] = f"{call.function}({', '.join(show_value(a) for a in call.args)})"
    if isinstance(expected, float) and isinstance(got, (float, np.floating)):
        details["expected"], details["got"] = shown_apart(expected, float(got))
        return details
    if expected is not None:
        details["expected"] = show_value(expected)
    if got is not None:
        details["got"] = show_value(got)
    return details
