"""Try it: run the learner's own inputs against their ``solution.py`` in the sandbox, graded by nothing.

The solution is loaded in a run as for grading, with the exercise's limits; the inputs are sent as
text and compiled and run inside the run (:mod:`runner.trying`), one statement at a time, so each
line's value is streamed as soon as it exists. Nothing untrusted is evaluated here: values come back
over the wire as plain data and are only described (:mod:`grader.results.tried`).
"""

from __future__ import annotations

import time

from grader.exercise import Exercise
from grader.grading import verdicts
from grader.grading.engine import validate_source
from grader.grading.runs import Stop
from grader.grading.session import SolutionRaised, SolutionSession, SolutionSyntaxError, UnsupportedValue
from grader.results import (
    MESSAGE_CHARS,
    OUTPUT_CHARS,
    Location,
    OutputProduced,
    Reason,
    Started,
    Status,
    Tried,
    TriedStatement,
    TriedValue,
    TryResult,
    TrySink,
    ValueShown,
    cap_text,
    described,
    messages,
)
from grader.sandbox import Ending, RunnerDied, SandboxUnavailable

#: The inputs' own size limit (the solution has the exercise's).
MAX_INPUTS_BYTES = 16 * 1024
#: Statements run at most: a try is a few lines, not a program.
MAX_STEPS = 200


def try_solution(
    exercise: Exercise,
    source: str,
    inputs: str,
    *,
    jailed: bool = True,
    warm: bool = True,
    on_event: TrySink | None = None,
    stop: Stop | None = None,
) -> TryResult:
    """Load ``source`` and run ``inputs`` next to it; report each statement's value and what was printed."""
    emit = on_event or (lambda event: None)
    stop = stop or Stop()
    started = time.monotonic()
    result = _try(exercise, source, inputs, jailed, warm, emit, stop)
    result.duration_ms = round((time.monotonic() - started) * 1000, 1)
    emit(Tried(result=result))
    return result


def _try(
    exercise: Exercise, source: str, inputs: str, jailed: bool, warm: bool, emit: TrySink, stop: Stop
) -> TryResult:
    values: list[TriedValue] = []
    printed: list[str] = []
    running: TriedStatement | None = None  # the statement of the inputs being run, if one is

    def result(
        reason: Reason, message: str | None = None, location: Location | None = None,
        failed: TriedStatement | None = None,
    ) -> TryResult:  # fmt: skip
        status = Status.PASS if reason is Reason.PASSED else Status.ERROR
        text = cap_text(message, MESSAGE_CHARS) if message else None
        output = cap_text("".join(printed), OUTPUT_CHARS) or None
        return TryResult(
            exercise=exercise.slug, status=status, reason=reason, message=text, location=location, values=values,
            output=output, failed=failed,
        )  # fmt: skip

    text, problem = validate_source(source, exercise.limits.source_kb * 1024)
    if problem is not None:
        return result(Reason.INVALID_SOURCE, problem)
    if len(inputs.encode("utf-8", "surrogatepass")) > MAX_INPUTS_BYTES:
        return result(Reason.INVALID_SOURCE, messages.inputs_too_long(MAX_INPUTS_BYTES // 1024))
    limits = exercise.limits
    try:
        session = SolutionSession(limits, jailed=jailed, warm=warm)  # the exercise's time limits, as a grading's
    except SandboxUnavailable as exc:
        return result(Reason.INTERNAL_ERROR, messages.sandbox_unavailable(exc))
    stop.watch(session.run)

    def flush() -> None:
        out = session.take_output()
        if out:
            printed.append(out)
            emit(OutputProduced(text=out))

    try:
        try:
            session.load(text, exercise.function_names)
        except (SolutionSyntaxError, SolutionRaised) as exc:
            return result(*verdicts.failed_to_load(exc))
        emit(Started(checks=[]))
        flush()
        try:
            steps = session.try_inputs(inputs)
        except SolutionSyntaxError as exc:
            message = messages.syntax_error(exc.type, exc.line, exc.message, exc.text, exc.column)
            where = TriedStatement(line=exc.line, source=exc.text.strip()[:200]) if exc.line else None
            return result(Reason.SYNTAX_ERROR, message.replace(" on line ", " in your inputs, line ", 1), failed=where)
        except SolutionRaised as exc:
            return result(Reason.RAISED, exc.describe("Reading your inputs"))
        for index, (line, statement) in enumerate(steps[:MAX_STEPS]):
            running = TriedStatement(line=line, source=statement)
            try:
                has_value, value, as_text = session.try_step(index)
            except SolutionRaised as exc:
                flush()
                return result(Reason.RAISED, exc.describe(messages.input_line(line)), failed=running)
            except UnsupportedValue as exc:
                flush()
                message = messages.value_not_shown(line, exc.detail)
                return result(Reason.UNSUPPORTED_VALUE, message, failed=running)
            flush()
            if has_value:
                shown = described(line, statement, value, as_text)
                values.append(shown)
                emit(ValueShown(index=len(values) - 1, value=shown))
        if len(steps) > MAX_STEPS:
            return result(Reason.PASSED, messages.first_statements_only(MAX_STEPS))
        return result(Reason.PASSED)
    except RunnerDied as died:
        if died.ending is Ending.STOPPED or stop.requested:
            return result(Reason.STOPPED, messages.try_stopped(), failed=running)
        verdict = verdicts.died(died, "while running your inputs", limits)
        return result(verdict.reason, verdict.message, failed=running)
    finally:
        stop.watch(None)
        session.close(wait=False)
