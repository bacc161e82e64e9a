"""A grading's time limits through the real sandbox: CPU time for the whole run, and a wall-clock backstop.

Each test's limits leave the other clock far away, so that a busy host changes nothing: a busy loop
must meet its CPU limit with a wall-clock limit twenty times longer, and a sleep must meet the wall
clock while using no CPU at all.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from grader.exercise import Exercise, load_exercise
from grader.grading.engine import grade
from grader.results.records import Reason, Status
from tests.conftest import ADDER_TOML

MakeExercise = Callable[..., Path]


def adder_with(make_exercise: MakeExercise, time_seconds: float, factor: float, **files: str) -> Exercise:
    toml = ADDER_TOML.format(time_seconds=time_seconds).replace(
        "[limits]\n", f"[limits]\nwall_clock_factor = {factor}\n"
    )
    return load_exercise(make_exercise(files={"exercise.toml": toml, **files}))


def test_a_busy_loop_ends_on_its_cpu_time_and_says_so(make_exercise: MakeExercise) -> None:
    exercise = adder_with(make_exercise, time_seconds=1, factor=20)
    result = grade(exercise, "def add(a, b):\n    while True:\n        pass\n")
    first = result.tests[0]
    assert (first.status, first.reason) == (Status.ERROR, Reason.TIMEOUT)
    assert (first.message or "").startswith(
        "Time limit exceeded during add(): the run used up its 1 s of CPU time (every check and every process "
        "the solution starts count together). An infinite loop, or a very slow solution?"
    )
    assert result.reason is Reason.TIMEOUT and (result.message or "").startswith("Timed out in “Adds small numbers”.")


def test_a_sleep_ends_on_the_wall_clock_and_says_it_was_waiting(make_exercise: MakeExercise) -> None:
    exercise = adder_with(make_exercise, time_seconds=0.5, factor=2)
    began = time.monotonic()
    result = grade(exercise, "import time\n\ndef add(a, b):\n    time.sleep(3600)\n")
    first = result.tests[0]
    assert first.reason is Reason.TIMEOUT
    assert (first.message or "").startswith(
        "Time limit exceeded during add(): the run reached its wall-clock limit of 1 s (2× its 0.5 s of CPU time) "
        "without finishing, and had used only 0.0"
    )
    assert (first.message or "").endswith(
        " s of CPU time: it was waiting, not computing (a sleep, or a read that never returns?)."
    )
    assert time.monotonic() - began >= 1


def test_a_solution_that_waits_longer_than_its_cpu_limit_passes(make_exercise: MakeExercise) -> None:
    # 0.8 s of wall-clock time in all, but little CPU time: as a busy host would make it.
    exercise = adder_with(make_exercise, time_seconds=0.5, factor=10)
    result = grade(exercise, "import time\n\ndef add(a, b):\n    time.sleep(0.4)\n    return a + b\n")
    assert result.status is Status.PASS, result.message


WAITING_CHECKS = """\
import time

from grader.checks import check, expect_integer


@check("Adds after the grader has worked")
def after_work(student):
    time.sleep(1.5)  # the check's own time, between two calls into the sandbox
    expect_integer(student.add(2, 3), 5, what="add(2, 3)")
"""


def test_the_wall_clock_runs_only_while_the_solution_is_answering(make_exercise: MakeExercise) -> None:
    exercise = adder_with(make_exercise, time_seconds=0.5, factor=2, **{"checks.py": WAITING_CHECKS})
    result = grade(exercise, "def add(a, b):\n    return a + b\n")
    assert result.status is Status.PASS, result.message


# Each runner computes for 0.6 s of CPU time from when it loads; the first then ends its own process.
CRASHES_AFTER_COMPUTING = """\
import os, time

LOADED = time.process_time()


def add(a, b):
    while time.process_time() - LOADED < 0.6:
        pass
    if a == 2:
        os._exit(3)
    return a + b
"""


def test_a_runner_started_after_a_crash_has_only_the_cpu_time_left(make_exercise: MakeExercise) -> None:
    exercise = adder_with(make_exercise, time_seconds=1, factor=20)
    result = grade(exercise, CRASHES_AFTER_COMPUTING)
    crashed, second = result.tests
    assert crashed.reason is Reason.EXITED, crashed.message
    # Alone, the second runner's 0.6 s would fit in 1 s: with the first one's, they do not.
    assert second.reason is Reason.TIMEOUT, second.message
    assert "used up its 1 s of CPU time" in (second.message or "")
