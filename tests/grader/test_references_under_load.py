"""Every exercise's reference passes with the machine deliberately loaded: a busy server fails no correct solution.

Twice as many busy Python processes as the host has CPUs run beside the grading (at the same
priority, each in a session of its own), and each reference is graded once, warm, through the real
sandbox, with a CPU limit of only 0.5 s (the heaviest reference needs about a tenth of that) and
the default wall-clock factor. A wall-clock limit of 0.5 s would fail several of them here: the
time a grading waits for a CPU is not the solution's time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from grader.exercise import Exercise, load_exercise
from grader.grading.engine import grade
from grader.results.records import Reason, Status
from grader.sandbox import Limits
from tests.conftest import EXERCISES_DIR
from tests.grader.conftest import copy_with_limits

CPU_SECONDS = 0.5
HOGS = 2 * (os.cpu_count() or 1)


@pytest.fixture(scope="module")
def exercises(tmp_path_factory: pytest.TempPathFactory) -> list[Exercise]:
    """Every exercise, its CPU limit cut to ``CPU_SECONDS`` (never raised) and the default wall-clock factor."""
    root = tmp_path_factory.mktemp("loaded")
    found = []
    for folder in sorted(path for path in EXERCISES_DIR.iterdir() if (path / "exercise.toml").is_file()):
        limit = min(load_exercise(folder).limits.time_seconds, CPU_SECONDS)
        factor = Limits.model_fields["wall_clock_factor"].default
        copy = copy_with_limits(folder, root, {"time_seconds": str(limit), "wall_clock_factor": str(factor)})
        found.append(load_exercise(copy))
    return found


class Hogs:
    """Busy loops in processes of their own, and the CPU time they used once stopped."""

    def __init__(self, count: int) -> None:
        self.began = time.monotonic()
        # Each in a session of its own: the kernel's autogroup would otherwise weigh them all as one process.
        self.processes = [
            subprocess.Popen([sys.executable, "-I", "-c", "while True: pass"], start_new_session=True)
            for _ in range(count)
        ]
        self.cpu_seconds = 0.0
        self.seconds = 0.0

    def stop(self) -> None:
        for process in self.processes:
            process.kill()
        for process in self.processes:
            _, _, usage = os.wait4(process.pid, 0)
            process.returncode = -9  # reaped here, with its usage
            self.cpu_seconds += usage.ru_utime + usage.ru_stime
        self.seconds = time.monotonic() - self.began


def test_every_reference_passes_with_the_machine_loaded(exercises: list[Exercise]) -> None:
    for exercise in exercises[:1]:  # the warm pool up before the load, as on a server that has been running
        grade(exercise, exercise.reference_path.read_text())
    load = Hogs(HOGS)
    try:
        results = {exercise.slug: grade(exercise, exercise.reference_path.read_text()) for exercise in exercises}
    finally:
        load.stop()
    failed = {
        slug: [(t.id, t.reason.value, t.message) for t in result.failing()] or result.message
        for slug, result in results.items()
        if result.status is not Status.PASS
    }
    assert failed == {}
    assert not any(t.reason is Reason.TIMEOUT for result in results.values() for t in result.tests)
    # The load was real: the busy loops ran for a good part of the time the gradings took.
    assert load.cpu_seconds >= 0.25 * load.seconds, (load.cpu_seconds, load.seconds)
