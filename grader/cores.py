"""Which CPU a warm run, and the grading thread talking to it, share.

A check and the runner answer each other hundreds of times per grade, and each answer wakes the
other side. When the two sit on different CPUs every wake-up is an inter-processor interrupt,
which on a virtual machine costs tens of microseconds (a pipe ping-pong measured here: 93 µs
across CPUs, 10 µs on one). So the grading thread and its runner are pinned to the same CPU for
the run, and each run gets the CPU with the fewest runs on it, so a solution stuck in a loop
shares its CPU with as few honest runs as possible.

The pinning is a performance measure only: a solution may change its own affinity (within the
host's cpuset) and gains nothing by it beyond the CPU share its cgroup already gives it.
"""

from __future__ import annotations

import itertools
import os
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class PinnedThread:
    """A thread pinned to ``cpu`` for one run; :meth:`CoreAssignment.release` undoes it."""

    cpu: int
    thread: int
    previous: frozenset[int]


class CoreAssignment:
    """Counts the runs pinned to each CPU of this process, and pins threads to the least busy."""

    def __init__(self, cpus: set[int] | None = None) -> None:
        self.cpus = sorted(cpus if cpus is not None else os.sched_getaffinity(0))
        self._runs = dict.fromkeys(self.cpus, 0)
        self._turn = itertools.count()
        self._lock = threading.Lock()

    def pin_current_thread(self) -> PinnedThread:
        """Pick the CPU with the fewest runs (taking turns among ties) and pin the calling thread to it."""
        previous = frozenset(os.sched_getaffinity(0))
        with self._lock:
            fewest = min(self._runs.values())
            candidates = [cpu for cpu in self.cpus if self._runs[cpu] == fewest]
            cpu = candidates[next(self._turn) % len(candidates)]
            self._runs[cpu] += 1
        try:
            os.sched_setaffinity(0, {cpu})
        except OSError:
            # A host whose cpuset changed under us: run unpinned rather than not at all.
            previous = frozenset()
        return PinnedThread(cpu, threading.get_ident(), previous)

    def release(self, pinned: PinnedThread) -> None:
        """Count the run as finished; give the thread back its affinity if this is that thread."""
        with self._lock:
            self._runs[pinned.cpu] -= 1
        if pinned.previous and threading.get_ident() == pinned.thread:
            os.sched_setaffinity(0, pinned.previous)

    def runs_per_cpu(self) -> dict[int, int]:
        with self._lock:
            return dict(self._runs)


_default: CoreAssignment | None = None
_default_lock = threading.Lock()


def default_assignment() -> CoreAssignment:
    global _default
    with _default_lock:
        if _default is None:
            _default = CoreAssignment()
        return _default
