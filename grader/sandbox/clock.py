"""How long a grading's runs may take, enforced by the trusted side: CPU time, with a wall-clock backstop.

The limit a solution is held to is CPU time: what all of its processes computed, in every check
and in every runner of the grading (one started after a crash carries on where the last one
stopped). A busy host makes a run wait for a CPU but does not make it use more CPU time, so the
verdict does not depend on how busy the host is. A wall-clock limit several times longer ends what
uses no CPU and never finishes (a sleep, a read that never returns); it counts only the time the
solution was given to answer, never the grader's own work between two calls.

Reading a run's CPU time costs a file read (a scan of ``/proc`` on hosts without cgroups), so it is
read only when the budget could be spent: a run cannot use CPU time faster than the host has CPUs.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable

from grader.sandbox.endings import Ending
from grader.sandbox.limits import Limits

#: However little CPU time is left, looks at it are this far apart at least; however much, at most this far.
SOONEST_LOOK = 0.01
LATEST_LOOK = 1.0
_CPUS = os.cpu_count() or 1

#: Reads the current run's CPU time in seconds, counted from when it was ready.
CpuReader = Callable[[], float]


class RunClock:
    """The CPU and wall-clock time one grading's runs have used, against its limits. One grading thread uses it."""

    def __init__(self, cpu_seconds: float, wall_seconds: float) -> None:
        self.cpu_seconds = cpu_seconds
        self.wall_seconds = wall_seconds
        #: Time spent waiting for the solution's answers, in every exchange so far.
        self.wall_used = 0.0
        self._earlier_runs = 0.0  # CPU time of the runners before the current one
        self._current = 0.0  # the current runner's, as last read
        self._next_look = self._first_look()

    @classmethod
    def of(cls, limits: Limits) -> RunClock:
        return cls(limits.time_seconds, limits.wall_seconds)

    @classmethod
    def wall_only(cls, seconds: float) -> RunClock:
        """Only a wall-clock limit (a sandbox starting up, before any solution code exists)."""
        return cls(math.inf, seconds)

    @property
    def cpu_used(self) -> float:
        return self._earlier_runs + self._current

    def new_run(self) -> None:
        """A fresh runner takes over: what the previous ones used stays spent."""
        self._earlier_runs += self._current
        self._current = 0.0
        self._next_look = self._first_look()

    def look(self, cpu: CpuReader) -> None:
        """Read the current runner's CPU time now, and work out the soonest it could reach the limit."""
        if not math.isfinite(self.cpu_seconds):
            return  # nothing to reach (and before a run is ready, nothing to read)
        self._current = max(self._current, cpu())
        left = self.cpu_seconds - self.cpu_used
        self._next_look = time.monotonic() + min(max(left / _CPUS, SOONEST_LOOK), LATEST_LOOK)

    def spent(self, cpu: CpuReader, waited: float) -> Ending | None:
        """Which limit is reached, if any, ``waited`` seconds into an exchange (the CPU read only when it could be)."""
        if time.monotonic() >= self._next_look:
            self.look(cpu)
        if self.cpu_used >= self.cpu_seconds:
            return Ending.CPU_LIMIT
        if self.wall_used + waited >= self.wall_seconds:
            return Ending.WALL_CLOCK
        return None

    def wait(self, waited: float) -> float:
        """How long an exchange ``waited`` seconds in may wait for the run before calling :meth:`spent` again."""
        return max(0.0, min(self._next_look - time.monotonic(), self.wall_seconds - self.wall_used - waited))

    def _first_look(self) -> float:
        return -math.inf if math.isfinite(self.cpu_seconds) else math.inf
