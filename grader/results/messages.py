"""What a student reads about a run that is not a check's own verdict: one place for each sentence.

A run's summary, why a check did not run, what runs on after a timeout, a stopped run, a solution
that cannot be graded, a hidden check's withheld details. Messages say what happened and what to
do, never blame the student for the grader's problems, and name the limit that was reached. The
verdicts built from them (which case, which reason, whether the run ends) are
:mod:`grader.grading.verdicts`'.
"""

from __future__ import annotations

from grader.results.records import CheckResult, Reason


def source_problem(raw: bytes, max_bytes: int) -> tuple[str, str | None]:
    """The source as text, or a message saying why it cannot be graded."""
    if len(raw) > max_bytes:
        return "", f"solution.py is {size(len(raw))}; the limit is {size(max_bytes)}."
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return "", f"solution.py is not valid UTF-8: byte 0x{raw[exc.start]:02x} on line {line}."
    if "\x00" in text:
        line = text[: text.index("\x00")].count("\n") + 1
        return "", f"solution.py contains a NUL byte on line {line}."
    return text, None


def sandbox_unavailable(problem: object) -> str:
    return (
        f"The grader could not start its sandbox ({problem}). This is a problem with the grading server, "
        "not with your solution: please try again later."
    )


def syntax_error(kind: str, line: int | None, message: str, text: str, column: int | None) -> str:
    pointer = f"\n    {text}\n    {' ' * max((column or 1) - 1, 0)}^" if text else ""
    return f"{kind} on line {line}: {message}{pointer}"


def not_run(because: Reason) -> str:
    """Why a check after one that ended the run did not run."""
    return "Not run: " + {
        Reason.TIMEOUT: "the time limit was reached in an earlier check.",
        Reason.CPU_LIMIT: "the CPU time limit was reached in an earlier check.",
        Reason.OUTPUT_LIMIT: "the output limit was reached in an earlier check.",
        Reason.INTERNAL_ERROR: "the grader stopped the run after a problem in an earlier check.",
        Reason.STOPPED: "the run was stopped before this check.",
    }.get(because, "an earlier check stopped the run.")


def timed_out_in(check_titles: list[str], summary: str) -> str:
    """The run's message when a check ran out of time, or two did (the second in the run started after the first)."""
    return f"Timed out in {', then in '.join(f'“{title}”' for title in check_titles)}. {summary}"


def goes_on_after_timeout(message: str, function: str, seconds: float) -> str:
    """A first timeout's message, saying that the checks left run on in a new run: the run's time is not over."""
    return (
        f"{message} The checks left that do not call {function}() run next, in a new run with {seconds:g} s of CPU "
        "time of its own."
    )


def timed_out_again(message: str, function: str) -> str:
    """A timeout in the new run started after ``function`` ran out of time: no other run follows."""
    return f"{message} That was the new run for the checks that do not call {function}(): no further run is started."


def stopped(check_title: str | None) -> str:
    """The run's message when its learner stopped it."""
    where = f" during “{check_title}”" if check_title else ""
    return f"Stopped{where}: you stopped the run before it finished."


def stopped_during() -> str:
    return "Stopped while this check ran."


def hidden_output_note(outcome: CheckResult) -> str:
    """Said in place of what a hidden check's run printed (which could show its inputs, as could how much it was)."""
    return f"[printed during the hidden check “{outcome.name}”: not shown]\n"


def withheld_message(symptom: str | None = None) -> str:
    """A hidden check's message in place of one of the exercise's that would have shown the check's values."""
    said = "Your answer differs from the expected one (the details are not shown: this check is hidden)."
    return f"{said}\n{symptom}" if symptom else said


def all_passed(count: int) -> str:
    return f"All {count} checks passed."


def some_failed(failing: int, count: int) -> str:
    """A failed run's summary: how many checks did not pass (its likely mistake is the result's own, said once)."""
    return f"{failing} of {count} checks did not pass."


def size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n / 1024:.0f} KiB" if n >= 1024 else f"{n} bytes"


# --------------------------------------------------------------------------- Try it


def inputs_too_long(max_kib: int) -> str:
    return f"Your inputs are longer than {max_kib} KiB."


def input_line(line: int) -> str:
    """Where in a try something happened."""
    return f"Line {line} of your inputs"


def value_not_shown(line: int, detail: str) -> str:
    return f"{input_line(line)} gave a value that cannot be shown: {detail}."


def first_statements_only(count: int) -> str:
    return f"Only the first {count} statements of your inputs were run."


def try_stopped() -> str:
    return "Stopped: you stopped the try before it finished."


# --------------------------------------------------------------------------- the server's side


def exercise_gone(slug: str) -> str:
    return f"The exercise {slug!r} no longer exists."


def grader_failed(error: str) -> str:
    return f"The grader failed ({error}). This is a problem on the server, not in your code."


def server_restarted() -> str:
    return "The server restarted while this ran. Press Run again."


def grader_gave_up(attempts: int) -> str:
    return f"The grader stopped {attempts} times while grading this. Press Run again, or tell your teacher."
