"""Grade one solution: load it in the sandbox, run every check, decide the verdict.

Everything that decides the verdict happens here, in the trusted process. What the solution
prints, how its process exits and anything it writes are only evidence for messages.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from grader import cgroups
from grader.budget import BudgetExceeded, CheckBudget
from grader.caps import MESSAGE_CHARS, OUTPUT_CHARS, cap_text, fit_result
from grader.checks import Check, CheckFailed
from grader.display import show_value
from grader.events import CheckFinished, EventSink, Finished, OutputProduced, Started
from grader.exercise import Exercise, FunctionSpec
from grader.proxy import Student
from grader.results import CheckResult, GradeResult, Location, Reason, Status
from grader.sandbox import Ending, RunnerDied, SandboxUnavailable
from grader.session import SolutionRaised, SolutionSession, SolutionSyntaxError, UnsupportedValue

log = logging.getLogger(__name__)

# Endings after which the run stops: the budget they exhausted is shared by every check.
_FATAL_ENDINGS = {Ending.TIMEOUT, Ending.CPU_LIMIT, Ending.OUTPUT_LIMIT}


@dataclass(frozen=True)
class _Verdict:
    status: Status
    reason: Reason
    message: str


def grade(
    exercise: Exercise,
    source: str | bytes,
    *,
    jailed: bool = True,
    warm: bool = True,
    on_event: EventSink | None = None,
) -> GradeResult:
    """Grade ``source`` (the text of ``solution.py``) against ``exercise``'s checks.

    ``warm`` forks the run from a pre-started sandboxed runner (the cold path starts a new sandbox);
    ``jailed=False`` runs without any sandbox, for an instructor's own files.
    """
    emit = on_event or (lambda event: None)
    started = time.monotonic()
    result = _grade(exercise, source, jailed, warm, emit, started)
    result.duration_ms = round((time.monotonic() - started) * 1000, 1)
    result = fit_result(result)
    emit(Finished(result=result))
    return result


def _grade(
    exercise: Exercise, source: str | bytes, jailed: bool, warm: bool, emit: EventSink, started: float
) -> GradeResult:
    limits = exercise.limits
    max_points = float(sum(c.points for c in exercise.checks))

    def error(reason: Reason, message: str, **extra: Any) -> GradeResult:
        return GradeResult(
            status=Status.ERROR, reason=reason, message=cap_text(message, MESSAGE_CHARS), exercise=exercise.slug,
            max_points=max_points, **extra,
        )  # fmt: skip

    text, problem = validate_source(source, limits.source_kb * 1024)
    if problem is not None:
        return error(Reason.INVALID_SOURCE, problem)

    runs = _Runs(exercise, text, jailed, warm)
    try:
        try:
            runs.current()
        except _LoadFailed as failure:
            output = cap_text(runs.take_output(), OUTPUT_CHARS) or None
            return error(failure.reason, failure.message, location=failure.location, output=output)
        except SandboxUnavailable as exc:
            log.error("sandbox unavailable for %s: %s", exercise.slug, exc)
            return error(Reason.INTERNAL_ERROR, f"The grader could not start its sandbox ({exc}). This is a problem "
                         "with the grading server, not with your solution: please try again later.")  # fmt: skip
        load_output = cap_text(runs.take_output(), OUTPUT_CHARS)
        emit(Started(checks=[c.title for c in exercise.checks]))
        if load_output:
            emit(OutputProduced(text=load_output))
        tests: list[CheckResult] = []
        stop_reason: _Verdict | None = None
        for index, check in enumerate(exercise.checks):
            if stop_reason is not None:
                outcome = CheckResult(
                    name=check.title, id=check.id, status=Status.ERROR, reason=Reason.NOT_RUN,
                    message=f"Not run: {stop_reason.message}", public=check.public, points=0, duration_ms=0,
                )  # fmt: skip
            else:
                outcome, fatal = _run_check(exercise, check, runs)
                if fatal:
                    stop_reason = _Verdict(outcome.status, outcome.reason, _stopped_because(outcome.reason))
            tests.append(outcome)
            emit(CheckFinished(index=index, check=outcome))
            if outcome.output:
                emit(OutputProduced(text=outcome.output))
            elif outcome.printed_lines:
                emit(OutputProduced(text=_hidden_output_note(outcome)))
    finally:
        runs.close()

    failing = [t for t in tests if t.status is not Status.PASS]
    points = float(sum(t.points for t in tests))
    if not failing:
        return GradeResult(
            status=Status.PASS, reason=Reason.PASSED, message=f"All {len(tests)} checks passed.",
            tests=tests, exercise=exercise.slug, points=points, max_points=max_points, output=load_output or None,
            output_truncated=runs.output_truncated,
        )  # fmt: skip
    worst = next((t for t in failing if t.reason in _RUN_STOPPERS), failing[0])
    return GradeResult(
        status=Status.FAIL, reason=worst.reason, message=f"{len(failing)} of {len(tests)} checks did not pass.",
        tests=tests, exercise=exercise.slug, points=points, max_points=max_points, output=load_output or None,
        output_truncated=runs.output_truncated,
    )  # fmt: skip


_RUN_STOPPERS = {
    Reason.TIMEOUT, Reason.CPU_LIMIT, Reason.OUTPUT_LIMIT, Reason.MEMORY_LIMIT, Reason.CRASHED, Reason.BLOCKED_SYSCALL
}  # fmt: skip


def _stopped_because(reason: Reason) -> str:
    return {
        Reason.TIMEOUT: "the time limit was reached in an earlier check.",
        Reason.CPU_LIMIT: "the CPU time limit was reached in an earlier check.",
        Reason.OUTPUT_LIMIT: "the output limit was reached in an earlier check.",
        Reason.INTERNAL_ERROR: "the grader stopped the run after a problem in an earlier check.",
    }.get(reason, "an earlier check stopped the run.")


def _hidden_output_note(outcome: CheckResult) -> str:
    lines = outcome.printed_lines
    return f"[{lines} line{'s' if lines != 1 else ''} printed during the hidden check “{outcome.name}”: not shown]\n"


def validate_source(source: str | bytes, max_bytes: int) -> tuple[str, str | None]:
    """Return the source as text, or a message saying why it cannot be graded."""
    raw = source.encode("utf-8", "surrogatepass") if isinstance(source, str) else source
    if len(raw) > max_bytes:
        return "", f"solution.py is {_size(len(raw))}; the limit is {_size(max_bytes)}."
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return "", f"solution.py is not valid UTF-8: byte 0x{raw[exc.start]:02x} on line {line}."
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        return "", f"solution.py contains a NUL byte on line {line}."
    return text, None


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB" if n >= 1024 else f"{n} bytes"


class _LoadFailed(Exception):
    def __init__(self, reason: Reason, message: str, location: Location | None = None) -> None:
        super().__init__(message)
        self.reason, self.message, self.location = reason, message, location


class _Runs:
    """The current runner with the solution loaded; a new one after a crash."""

    def __init__(self, exercise: Exercise, source: str, jailed: bool, warm: bool) -> None:
        self.exercise, self.source, self.jailed, self.warm = exercise, source, jailed, warm
        # The run's wall-clock budget starts once the first runner is up: a slow sandbox start
        # (a busy host) is not the solution's time. Runners started after a crash share it,
        # and the output allowance too.
        self.deadline: float | None = None
        self._output_used = 0
        self._session: SolutionSession | None = None
        self.output_truncated = False
        #: Made here, in the grading thread, whose CPU time it counts.
        self.budget = CheckBudget(exercise.limits.checks_cpu_seconds)

    def current(self) -> SolutionSession:
        if self._session is not None and self._session.alive:
            return self._session
        self.close()
        session = SolutionSession(
            self.exercise.limits, jailed=self.jailed, deadline=self.deadline or math.inf, warm=self.warm
        )
        if self.deadline is None:
            self.deadline = time.monotonic() + self.exercise.limits.time_seconds
        session.deadline = self.deadline
        output = session.process.output
        output.limit = max(0, output.limit - self._output_used)
        self._session = session
        try:
            described = session.load(self.source, self.exercise.function_names)
        except SolutionSyntaxError as exc:
            location = Location(line=exc.line or 1, column=exc.column, text=exc.text or None)
            pointer = f"\n    {exc.text}\n    {' ' * max((exc.column or 1) - 1, 0)}^" if exc.text else ""
            raise _LoadFailed(
                Reason.SYNTAX_ERROR, f"{exc.type} on line {exc.line}: {exc.message}{pointer}", location
            ) from None
        except SolutionRaised as exc:
            location = Location(line=exc.line) if exc.line else None
            if exc.type == "SystemExit":
                message = (
                    f"solution.py called sys.exit({exc.message}) while loading, on line {exc.line}; "
                    "it should only define its functions."
                )
                raise _LoadFailed(Reason.EXITED, message, location) from None
            reason = Reason.MEMORY_LIMIT if exc.type == "MemoryError" else Reason.IMPORT_ERROR
            raise _LoadFailed(reason, exc.describe("solution.py, while loading,"), location) from None
        except RunnerDied as died:
            verdict = _died_verdict(died, "while loading solution.py", self.exercise)
            raise _LoadFailed(verdict.reason, verdict.message) from None
        for spec in self.exercise.config.functions:
            problem = _signature_problem(spec, described.get(spec.name))
            if problem is not None:
                raise _LoadFailed(*problem)
        return session

    def take_output(self) -> str:
        if self._session is None:
            return ""
        text = self._session.take_output()
        self.output_truncated = self.output_truncated or self._session.process.output.exceeded
        return text

    def close(self) -> None:
        if self._session is not None:
            self._session.close(wait=False)  # the verdict need not wait for the run's tidying up
            self._output_used += self._session.process.output.size
            self._session = None


def _signature_problem(spec: FunctionSpec, described: Any) -> tuple[Reason, str] | None:
    if not isinstance(described, dict):
        return Reason.MISSING_FUNCTION, f"solution.py does not define {spec.signature}."
    if described.get("callable") is not True:
        kind = described.get("type", "value")
        return Reason.MISSING_FUNCTION, f"{spec.name} in solution.py is a {kind}, not a function."
    params = described.get("params")
    if not isinstance(params, list):
        return None  # a callable whose signature cannot be read (a builtin): let the calls decide
    wanted = len(spec.params)
    positional = [p for p in params if isinstance(p, list) and p[1] in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
    required = [p for p in positional if not p[2]]
    var_positional = any(isinstance(p, list) and p[1] == "VAR_POSITIONAL" for p in params)
    required_keyword = [p for p in params if isinstance(p, list) and p[1] == "KEYWORD_ONLY" and not p[2]]
    if len(required) > wanted or (len(positional) < wanted and not var_positional) or required_keyword:
        names = ", ".join(str(p[0]) for p in params if isinstance(p, list))
        return (
            Reason.WRONG_SIGNATURE,
            f"{spec.name}({names}) in solution.py cannot be called as {spec.signature}: "
            f"it must take {wanted} argument{'s' if wanted != 1 else ''}.",
        )
    return None


def _run_check(exercise: Exercise, check: Check, runs: _Runs) -> tuple[CheckResult, bool]:
    """Run one check; return its result and whether the run must stop."""
    student = Student(exercise.function_names, runs.current, runs.budget.crossing)
    began = time.monotonic()
    try:
        with runs.budget.watching():
            verdict, hint_id, details, fatal = _checked(exercise, check, student)
    except BudgetExceeded:
        verdict = _Verdict(Status.ERROR, Reason.INTERNAL_ERROR,
                           f"The check “{check.title}” ({check.id}) used more than the grader's "
                           f"{exercise.limits.checks_cpu_seconds:g} s of CPU time for its own work, so the run was "
                           "stopped. This is a problem in the exercise, not in your solution.")  # fmt: skip
        hint_id, details, fatal = None, None, True
    duration = round((time.monotonic() - began) * 1000, 2)
    output = runs.take_output()
    printed_lines = output.count("\n") + (1 if output and not output.endswith("\n") else 0)
    shown = cap_text(output, OUTPUT_CHARS) or None
    result = CheckResult(
        name=check.title, id=check.id, status=verdict.status, reason=verdict.reason,
        message=cap_text(verdict.message, MESSAGE_CHARS) or None,
        output=shown if check.public else None, hidden_output=None if check.public else shown,
        printed_lines=printed_lines, public=check.public,
        points=check.points if verdict.status is Status.PASS else 0, duration_ms=duration,
        hint=exercise.hint_text(hint_id), hint_id=hint_id, details=details,
    )  # fmt: skip
    return result, fatal


def _checked(
    exercise: Exercise, check: Check, student: Student
) -> tuple[_Verdict, str | None, dict[str, str] | None, bool]:
    """Call the check; its verdict, hint id, public details and whether the run must stop.

    A hint is advice about the solution's logic: it goes with wrong answers and exceptions only,
    never with limits, crashes or sandbox refusals.
    """
    hint_id: str | None = None
    details: dict[str, str] | None = None
    fatal = False
    try:
        check.function(student)
        verdict = _Verdict(Status.PASS, Reason.PASSED, "")
    except CheckFailed as failed:
        verdict = _Verdict(Status.FAIL, Reason.WRONG_ANSWER, failed.message)
        hint_id = failed.hint or check.hint
        if check.public:
            details = _public_details(student.log.last(), failed.expected, failed.got)
    except SolutionRaised as exc:
        name = _current_call(student)
        if exc.type == "SystemExit":
            verdict = _Verdict(Status.FAIL, Reason.EXITED,
                               f"{name} called sys.exit({exc.message}) on line {exc.line}; "
                               "functions must return their result instead of exiting.")  # fmt: skip
        elif exc.type == "MemoryError":
            verdict = _Verdict(Status.ERROR, Reason.MEMORY_LIMIT,
                               f"Memory limit exceeded: {name} ran out of memory "
                               f"(the limit is {exercise.limits.memory_mb} MB).")  # fmt: skip
        elif _hit_process_limit(exc):
            verdict = _Verdict(Status.FAIL, Reason.RAISED,
                               f"Process limit reached (a solution may run at most {exercise.limits.processes} "
                               f"processes and threads at a time): {exc.describe(name)}")  # fmt: skip
        else:
            verdict = _Verdict(Status.FAIL, Reason.RAISED, exc.describe(name))
            # Not for the starter's "write your code here": no hint of a check is about that.
            hint_id = None if exc.type == "NotImplementedError" else check.hint
        if check.public:
            details = _public_details(student.log.last(), None, None)
    except UnsupportedValue as exc:
        message = f"{_current_call(student)} returned a value that cannot be checked: {exc.detail}."
        verdict = _Verdict(Status.FAIL, Reason.UNSUPPORTED_VALUE, message)
        hint_id = check.hint
    except RunnerDied as died:
        verdict = _died_verdict(died, f"during {_current_call(student)}", exercise)
        fatal = died.ending in _FATAL_ENDINGS
    except _LoadFailed as failure:  # a restart after a crash failed to load again
        verdict = _Verdict(Status.ERROR, failure.reason, failure.message)
        fatal = True
    except Exception as exc:  # noqa: BLE001  (a bug in the check itself; never the student's fault)
        verdict = _Verdict(
            Status.ERROR, Reason.INTERNAL_ERROR,
            f"The check itself failed ({type(exc).__name__}: {cap_text(str(exc), 300)}). This is a problem in the "
            "exercise, not in your solution.",
        )  # fmt: skip
    return verdict, hint_id, details, fatal


def _hit_process_limit(exc: SolutionRaised) -> bool:
    """fork() or a new thread refused by RLIMIT_NPROC (a fork bomb, a thread bomb, a subprocess loop)."""
    return (exc.type == "BlockingIOError" and "Resource temporarily unavailable" in exc.message) or (
        exc.type == "RuntimeError" and "can't start new thread" in exc.message
    )


def _current_call(student: Student) -> str:
    last = student.log.last()
    return f"{last[0]}()" if last else "the solution"


def _died_verdict(died: RunnerDied, when: str, exercise: Exercise) -> _Verdict:
    limits = exercise.limits
    match died.ending:
        case Ending.TIMEOUT:
            return _Verdict(Status.ERROR, Reason.TIMEOUT,
                            f"Time limit exceeded {when}: the run may take {limits.time_seconds:g} s in all "
                            "(an infinite loop, or a very slow solution?).")  # fmt: skip
        case Ending.CPU_LIMIT:
            return _Verdict(
                Status.ERROR, Reason.CPU_LIMIT, f"CPU time limit exceeded {when} ({limits.cpu_seconds} s of CPU)."
            )
        case Ending.OUTPUT_LIMIT:
            return _Verdict(Status.ERROR, Reason.OUTPUT_LIMIT,
                            f"Output limit exceeded {when}: the solution printed more than "
                            f"{limits.output_kb} KiB.")  # fmt: skip
        case Ending.REPLY_TOO_LARGE:
            return _Verdict(
                Status.FAIL, Reason.REPLY_TOO_LARGE, f"The value returned {when} is larger than {limits.reply_mb} MB."
            )
        case Ending.MALFORMED_REPLY:
            return _Verdict(
                Status.FAIL,
                Reason.UNSUPPORTED_VALUE,
                f"The solution's answer {when} could not be read ({died.detail}).",
            )
        case Ending.EXITED:
            return _Verdict(Status.FAIL, Reason.EXITED,
                            f"The solution ended its process {when} (exit code {died.exit_code}); "
                            "functions must return their result instead of exiting.")  # fmt: skip
        case Ending.BLOCKED_SYSCALL:
            return _Verdict(Status.ERROR, Reason.BLOCKED_SYSCALL,
                            f"The solution was stopped {when}: it made a system call the sandbox forbids "
                            "(such as ptrace, mount or unshare). Solutions need only computation.")  # fmt: skip
        case Ending.SIGNALLED if died.signal_name == "SIGKILL" and died.oom:
            # The run's cgroup counted an OOM kill: its processes together passed the tree's ceiling.
            tree_mb = cgroups.memory_limit_mb(limits)
            return _Verdict(Status.ERROR, Reason.MEMORY_LIMIT,
                            f"Memory limit exceeded {when}: the solution's processes together used more than "
                            f"{tree_mb} MB, so the kernel killed the run (SIGKILL).")  # fmt: skip
        case Ending.SIGNALLED if died.signal_name == "SIGKILL" and died.oom is False:
            return _Verdict(Status.ERROR, Reason.CRASHED,
                            f"The solution was killed {when} by SIGKILL, not by the memory limit or the grader: "
                            "by the solution itself, or one of its processes.")  # fmt: skip
        case Ending.SIGNALLED if died.signal_name == "SIGKILL":
            # No cgroup to ask (the fallback): the grader did not send it, the rest is a guess.
            return _Verdict(Status.ERROR, Reason.MEMORY_LIMIT,
                            f"The solution was killed {when} by SIGKILL (by the memory limit of "
                            f"{limits.memory_mb} MB or by the solution itself).")  # fmt: skip
        case _:
            return _Verdict(
                Status.ERROR, Reason.CRASHED, f"The solution crashed {when} ({died.signal_name or 'unknown signal'})."
            )


def _public_details(last_call: tuple[str, tuple[Any, ...]] | None, expected: Any, got: Any) -> dict[str, str]:
    details: dict[str, str] = {}
    if last_call is not None:
        name, args = last_call
        details["call"] = f"{name}({', '.join(show_value(a) for a in args)})"
    if expected is not None:
        details["expected"] = show_value(expected)
    if got is not None:
        details["got"] = show_value(got)
    return details
