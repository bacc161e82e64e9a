"""The run clock's arithmetic: which limit is reached, when the CPU time is read, and what carries over.

The CPU readings here are plain numbers handed to the clock; reading a real run is in test_cputime.py.
"""

from __future__ import annotations

import math

from grader.sandbox import Limits, RunClock
from grader.sandbox.clock import LATEST_LOOK
from grader.sandbox.endings import Ending


class Readings:
    """A run whose CPU time is whatever the test says, counting how often the clock reads it."""

    def __init__(self, seconds: float = 0.0) -> None:
        self.seconds = seconds
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return self.seconds


def test_the_cpu_limit_is_reached_when_the_runs_cpu_time_is() -> None:
    clock, run = RunClock(cpu_seconds=2, wall_seconds=10), Readings(1.99)
    assert clock.spent(run, waited=0) is None
    run.seconds = 2.0
    clock.look(run)
    assert clock.spent(run, waited=0) is Ending.CPU_LIMIT


def test_the_wall_clock_counts_every_exchange_and_is_reached_after_the_cpu() -> None:
    clock, run = RunClock(cpu_seconds=2, wall_seconds=10), Readings(0.0)
    clock.wall_used = 9.0  # earlier exchanges
    assert clock.spent(run, waited=0.5) is None
    assert clock.spent(run, waited=1.0) is Ending.WALL_CLOCK
    run.seconds = 5
    clock.look(run)
    assert clock.spent(run, waited=1.0) is Ending.CPU_LIMIT  # both reached: the CPU time is the limit


def test_the_cpu_time_is_read_only_when_it_could_have_run_out() -> None:
    clock, run = RunClock(cpu_seconds=100, wall_seconds=1000), Readings(0.0)
    for _ in range(1000):
        assert clock.spent(run, waited=0) is None
    assert run.reads == 1  # 100 s cannot be spent before the next look, at most LATEST_LOOK away
    assert 0 < clock.wait(waited=0) <= LATEST_LOOK


def test_the_wait_never_passes_the_wall_clock_limit() -> None:
    clock, run = RunClock(cpu_seconds=100, wall_seconds=10), Readings(0.0)
    clock.spent(run, waited=9.8)
    assert clock.wait(waited=9.8) <= 0.2 + 1e-9


def test_a_runner_after_a_crash_starts_from_what_the_ones_before_used() -> None:
    clock = RunClock(cpu_seconds=1, wall_seconds=10)
    first = Readings(0.6)
    clock.look(first)
    clock.new_run()
    second = Readings(0.3)
    assert clock.spent(second, waited=0) is None
    assert math.isclose(clock.cpu_used, 0.9)
    second.seconds = 0.4
    clock.look(second)
    assert clock.spent(second, waited=0) is Ending.CPU_LIMIT


def test_a_reading_never_goes_back() -> None:
    clock, run = RunClock(cpu_seconds=1, wall_seconds=10), Readings(0.5)
    clock.look(run)
    run.seconds = 0.2  # a process that ended and was not waited for, on hosts without cgroups
    clock.look(run)
    assert clock.cpu_used == 0.5


def test_a_wall_only_clock_never_reads_the_cpu() -> None:
    clock, run = RunClock.wall_only(5), Readings(1e9)
    assert clock.spent(run, waited=1) is None
    clock.look(run)
    assert run.reads == 0
    assert clock.spent(run, waited=5) is Ending.WALL_CLOCK


def test_the_clock_of_an_exercise_uses_its_limits() -> None:
    clock = RunClock.of(Limits(time_seconds=3, wall_clock_factor=4))
    assert (clock.cpu_seconds, clock.wall_seconds) == (3, 12)
