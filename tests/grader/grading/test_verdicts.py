"""Verdicts and messages: each ending named once, what ends the run, what a student reads."""

from __future__ import annotations

import pytest

from grader.grading import verdicts
from grader.results import messages
from grader.results.records import Reason, Status
from grader.sandbox import Ending, Limits, RunnerDied

LIMITS = Limits(time_seconds=2, memory_mb=256, output_kb=8)


@pytest.mark.parametrize(
    ("ending", "reason", "ends_run", "words"),
    [
        (RunnerDied(Ending.CPU_LIMIT), Reason.TIMEOUT, True, "during f(): the run used up its 2 s of CPU time"),
        (RunnerDied(Ending.WALL_CLOCK), Reason.TIMEOUT, True, "the run reached its wall-clock limit of 10 s"),
        (RunnerDied(Ending.OUTPUT_LIMIT), Reason.OUTPUT_LIMIT, True, "printed more than 8 KiB"),
        (RunnerDied(Ending.EXITED, exit_code=3), Reason.EXITED, False, "(exit code 3)"),
        (RunnerDied(Ending.BLOCKED_SYSCALL), Reason.BLOCKED_SYSCALL, False, "a system call the sandbox forbids"),
        (RunnerDied(Ending.SIGNALLED, signal_name="SIGKILL", oom=True), Reason.MEMORY_LIMIT, False, "than 352 MB"),
        (RunnerDied(Ending.SIGNALLED, signal_name="SIGKILL", oom=False), Reason.CRASHED, False, "not by the memory"),
        (RunnerDied(Ending.SIGNALLED, signal_name="SIGSEGV"), Reason.CRASHED, False, "crashed during f() (SIGSEGV)"),
        (RunnerDied(Ending.MALFORMED_REPLY, detail="bad"), Reason.UNSUPPORTED_VALUE, False, "could not be read (bad)"),
    ],
)  # fmt: skip
def test_each_ending_has_one_reason_and_a_message_naming_the_limit(
    ending: RunnerDied, reason: Reason, ends_run: bool, words: str
) -> None:
    verdict = verdicts.died(ending, "during f()", LIMITS)
    assert (verdict.reason, verdict.ends_run) == (reason, ends_run)
    assert words in verdict.message
    assert verdict.ends_run is (verdict.reason in verdicts.ENDS_THE_RUN)


@pytest.mark.parametrize(
    ("cpu_seconds", "words"),
    [
        (0.01, "(5× its 2 s of CPU time) without finishing, and had used only 0.01 s of CPU time: it was waiting, "
               "not computing (a sleep, or a read that never returns?)."),
        (1.5, "(5× its 2 s of CPU time) without finishing, and had used 1.5 s of CPU time."),
        (None, "(5× its 2 s of CPU time) without finishing."),
    ],
)  # fmt: skip
def test_a_wall_clock_stop_says_it_was_waiting_only_when_the_run_hardly_computed(
    cpu_seconds: float | None, words: str
) -> None:
    verdict = verdicts.died(RunnerDied(Ending.WALL_CLOCK, cpu_seconds=cpu_seconds), "during f()", LIMITS)
    assert verdict.message.startswith("Time limit exceeded during f(): the run reached its wall-clock limit of 10 s ")
    assert verdict.message.endswith(words)


def test_checks_after_the_run_ended_say_why_they_did_not_run() -> None:
    assert messages.not_run(Reason.TIMEOUT) == "Not run: the time limit was reached in an earlier check."
    assert messages.not_run(Reason.INTERNAL_ERROR).startswith("Not run: the grader stopped the run")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"x" * 2000, "solution.py is 2 KiB; the limit is 1 KiB."),
        (b"ok\n\xff", "solution.py is not valid UTF-8: byte 0xff on line 2."),
        (b"a\nb\x00", "solution.py contains a NUL byte on line 2."),
    ],
)
def test_a_source_that_cannot_be_graded_says_where(raw: bytes, message: str) -> None:
    assert messages.source_problem(raw, 1024) == ("", message)


def test_the_run_reason_is_about_the_run_when_a_check_has_one() -> None:
    assert verdicts.ENDS_THE_RUN <= verdicts.ABOUT_THE_RUN
    assert Reason.WRONG_ANSWER not in verdicts.ABOUT_THE_RUN
    assert verdicts.budget_spent.__name__ and verdicts.PASSED.status is Status.PASS
