"""Verdicts and every message a student reads about a run, in one place.

The grading loop (:mod:`grader.grading.engine`) decides *which* case it is; this module says what that
case is called (a :class:`~grader.results.records.Reason`), whether it ends the whole run, and what the
student is told. Messages say what happened and what to do, never blame the student for the
grader's problems, and name the limit that was reached.
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Any

from grader.exercise import Check, FunctionSpec
from grader.grading.session import SolutionRaised, SolutionSyntaxError
from grader.results import Location, Reason, Status, messages
from grader.sandbox import Ending, Limits, RunnerDied, memory_limit_mb

#: Reasons that end the whole run: the budget they exhausted is shared by every check.
#: Besides, the grader ends a run whose checks spent their own CPU budget (:func:`budget_spent`) and
#: one whose solution, restarted after a crash, no longer loads (:func:`reload_failed`).
ENDS_THE_RUN = frozenset({Reason.TIMEOUT, Reason.CPU_LIMIT, Reason.OUTPUT_LIMIT, Reason.STOPPED})
#: Reasons about the run itself rather than one answer: the run's reason when a check has one.
ABOUT_THE_RUN = ENDS_THE_RUN | {Reason.MEMORY_LIMIT, Reason.CRASHED, Reason.BLOCKED_SYSCALL}


@dataclass(frozen=True)
class Verdict:
    """A check's outcome: its status and reason, what the student reads, whether the run stops."""

    status: Status
    reason: Reason
    message: str
    ends_run: bool = False

    @classmethod
    def of(cls, status: Status, reason: Reason, message: str) -> Verdict:
        return cls(status, reason, message, ends_run=reason in ENDS_THE_RUN)


PASSED = Verdict(Status.PASS, Reason.PASSED, "")


def stopped() -> Verdict:
    """The check its learner stopped the run in."""
    return Verdict.of(Status.ERROR, Reason.STOPPED, messages.stopped_during())


def reload_failed(reason: Reason, message: str) -> Verdict:
    """The solution, restarted after a crash, did not load again: nothing after can run."""
    return Verdict(Status.ERROR, reason, message, ends_run=True)


# --------------------------------------------------------------------------- before any check


def failed_to_load(exc: SolutionSyntaxError | SolutionRaised) -> tuple[Reason, str, Location | None]:
    """Loading ``solution.py`` failed: not valid Python, exiting, running out of memory, or another exception."""
    if isinstance(exc, SolutionSyntaxError):
        message = messages.syntax_error(exc.type, exc.line, exc.message, exc.text, exc.column)
        return Reason.SYNTAX_ERROR, message, Location(line=exc.line or 1, column=exc.column, text=exc.text or None)
    location = Location(line=exc.line) if exc.line else None
    if exc.type == "SystemExit":
        message = (
            f"solution.py called sys.exit({exc.message}) while loading, on line {exc.line}; "
            "it should only define its functions."
        )
        return Reason.EXITED, message, location
    reason = Reason.MEMORY_LIMIT if exc.type == "MemoryError" else Reason.IMPORT_ERROR
    return reason, exc.describe("solution.py, while loading,"), location


def signature_problem(spec: FunctionSpec, described: Any) -> tuple[Reason, str] | None:
    """What is wrong with how solution.py defines ``spec``'s function, as the runner described it."""
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


# --------------------------------------------------------------------------- a check


def raised(exc: SolutionRaised, call: str, limits: Limits, *, public: bool = True) -> Verdict:
    """The solution raised inside ``call``: exiting, running out of memory, its process limit, or any other.

    In a hidden check only the exception's type (a built-in one's name) and line are said: its
    message, its traceback and a class of its own are the solution's text, and could carry the
    check's inputs.
    """
    if exc.type == "SystemExit":
        code = f"sys.exit({exc.message})" if public else "sys.exit()"
        return Verdict.of(
            Status.FAIL,
            Reason.EXITED,
            f"{call} called {code} on line {exc.line}; functions must return their result instead of exiting.",
        )
    if exc.type == "MemoryError":
        return Verdict.of(
            Status.ERROR,
            Reason.MEMORY_LIMIT,
            f"Memory limit exceeded: {call} ran out of memory (the limit is {limits.memory_mb} MB).",
        )
    described = exc.describe(call) if public else hidden_exception(exc, call)
    if _hit_process_limit(exc):
        return Verdict.of(
            Status.FAIL,
            Reason.RAISED,
            "Process limit reached (a solution may run at most "
            f"{limits.processes} processes and threads at a time): {described}",
        )
    return Verdict.of(Status.FAIL, Reason.RAISED, described)


def hidden_exception(exc: SolutionRaised, call: str) -> str:
    """What a hidden check says of an exception: its kind and line, nothing of its text."""
    return f"{raised_where(exc, call)} (its message is not shown: this check is hidden)."


def raised_where(exc: SolutionRaised, call: str) -> str:
    """Which function raised what kind of exception where: all any check may say of it, hidden or public.

    Checks that say the same are the same failure, said once for all of them
    (``CheckResult.same_as``); nothing else of the exception (its message, its other frames) may
    decide it, since a hidden check's would then show through the public one's.
    """
    kind = exc.type if exc.type in _BUILTIN_EXCEPTIONS else "an exception of a class of its own"
    where = f" on line {exc.line} of solution.py" if exc.line else ""
    return f"{call} raised {kind}{where}"


_BUILTIN_EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)


def _hit_process_limit(exc: SolutionRaised) -> bool:
    """fork() or a new thread refused by RLIMIT_NPROC (a fork bomb, a thread bomb, a subprocess loop)."""
    return (exc.type == "BlockingIOError" and "Resource temporarily unavailable" in exc.message) or (
        exc.type == "RuntimeError" and "can't start new thread" in exc.message
    )


def unsupported(call: str, detail: str | None) -> Verdict:
    """A value that cannot cross the boundary; ``detail`` (what is wrong with it) is left out of hidden checks."""
    said = f": {detail}" if detail else " (what is wrong with it is not shown: this check is hidden)"
    return Verdict.of(Status.FAIL, Reason.UNSUPPORTED_VALUE, f"{call} returned a value that cannot be checked{said}.")


def check_bug(exc: Exception, detail: str) -> Verdict:
    return Verdict.of(
        Status.ERROR,
        Reason.INTERNAL_ERROR,
        f"The check itself failed ({type(exc).__name__}: "
        f"{detail}). This is a problem in the exercise, not in your solution.",
    )


def budget_spent(check: Check, limits: Limits) -> Verdict:
    return Verdict(
        Status.ERROR,
        Reason.INTERNAL_ERROR,
        f"The check “{check.title}” ({check.id}) used more than the "
        f"grader's {limits.checks_cpu_seconds:g} s of CPU time for its own work, so the run was stopped. "
        "This is a problem in the exercise, not in your solution.",
        ends_run=True,
    )


def died(ending: RunnerDied, when: str, limits: Limits, *, public: bool = True) -> Verdict:
    """The run ended ``when`` (``"during attend_step()"``) before it answered.

    ``public``: whether details the solution chose (what made its reply unreadable) may be said.
    """
    match ending.ending:
        case Ending.CPU_LIMIT:
            return Verdict.of(Status.ERROR, Reason.TIMEOUT, _cpu_time_spent(when, limits))
        case Ending.WALL_CLOCK:
            return Verdict.of(Status.ERROR, Reason.TIMEOUT, _wall_clock_spent(when, limits, ending.cpu_seconds))
        case Ending.OUTPUT_LIMIT:
            return Verdict.of(
                Status.ERROR,
                Reason.OUTPUT_LIMIT,
                f"Output limit exceeded {when}: the solution printed more than {limits.output_kb} KiB.",
            )
        case Ending.REPLY_TOO_LARGE:
            return Verdict.of(
                Status.FAIL, Reason.REPLY_TOO_LARGE, f"The value returned {when} is larger than {limits.reply_mb} MB."
            )
        case Ending.MALFORMED_REPLY:
            return Verdict.of(
                Status.FAIL,
                Reason.UNSUPPORTED_VALUE,
                f"The solution's answer {when} could not be read"
                + (f" ({ending.detail})." if public else " (the reason is not shown: this check is hidden)."),
            )
        case Ending.EXITED:
            return Verdict.of(
                Status.FAIL,
                Reason.EXITED,
                f"The solution ended its process {when} (exit code "
                f"{ending.exit_code}); functions must return their result instead of exiting.",
            )
        case Ending.BLOCKED_SYSCALL:
            return Verdict.of(
                Status.ERROR,
                Reason.BLOCKED_SYSCALL,
                f"The solution was stopped {when}: it made a "
                "system call the sandbox forbids (such as ptrace, mount or unshare). Solutions need "
                "only computation.",
            )
        case Ending.STOPPED:
            return stopped()
        case Ending.SIGNALLED if ending.signal_name == "SIGKILL" and ending.oom:
            # The run's cgroup counted an OOM kill: its processes together passed the tree's ceiling.
            return Verdict.of(
                Status.ERROR,
                Reason.MEMORY_LIMIT,
                f"Memory limit exceeded {when}: the solution's "
                f"processes together used more than {memory_limit_mb(limits)} MB, so the kernel "
                "killed the run (SIGKILL).",
            )
        case Ending.SIGNALLED if ending.signal_name == "SIGKILL" and ending.oom is False:
            return Verdict.of(
                Status.ERROR,
                Reason.CRASHED,
                f"The solution was killed {when} by SIGKILL, not by "
                "the memory limit or the grader: by the solution itself, or one of its processes.",
            )
        case Ending.SIGNALLED if ending.signal_name == "SIGKILL":
            # No cgroup to ask (the fallback): the grader did not send it, the rest is a guess.
            return Verdict.of(
                Status.ERROR,
                Reason.MEMORY_LIMIT,
                f"The solution was killed {when} by SIGKILL (by "
                f"the memory limit of {limits.memory_mb} MB or by the solution itself).",
            )
        case _:
            return Verdict.of(
                Status.ERROR, Reason.CRASHED, f"The solution crashed {when} ({ending.signal_name or 'unknown signal'})."
            )


#: A run stopped by the wall clock that used at most this share of that time computing was waiting, not computing.
WAITING_SHARE = 0.02


def _cpu_time_spent(when: str, limits: Limits) -> str:
    return (
        f"Time limit exceeded {when}: the run used up its {limits.time_seconds:g} s of CPU time (every check and "
        "every process the solution starts count together). An infinite loop, or a very slow solution?"
    )


def _wall_clock_spent(when: str, limits: Limits, cpu_seconds: float | None) -> str:
    text = (
        f"Time limit exceeded {when}: the run reached its wall-clock limit of {limits.wall_seconds:g} s "
        f"({limits.wall_clock_factor:g}× its {limits.time_seconds:g} s of CPU time) without finishing"
    )
    if cpu_seconds is None:
        return text + "."
    if cpu_seconds <= WAITING_SHARE * limits.wall_seconds:
        return text + (
            f", and had used only {cpu_seconds:.2f} s of CPU time: it was waiting, not computing "
            "(a sleep, or a read that never returns?)."
        )
    return text + f", and had used {cpu_seconds:.1f} s of CPU time."


# --------------------------------------------------------------------------- the run


def refused_after_timeout(function: str, check_title: str) -> Verdict:
    """A check after a timeout that calls the function that ran out of time."""
    return Verdict(
        Status.ERROR,
        Reason.NOT_RUN,
        f"Not run: {function}() ran out of time in “{check_title}”, and this check calls it too.",
    )
