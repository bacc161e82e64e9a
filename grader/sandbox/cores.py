"""Which CPU a warm run, and the grading thread talking to it, share.

A check and the runner answer each other hundreds of times per grade, and each answer wakes the
other side. When the two sit on different CPUs every wake-up is an inter-processor interrupt,
which on a virtual machine costs tens of microseconds (a pipe ping-pong measured here: 93 µs
across CPUs, 10 µs on one). So the grading thread and its runner are pinned to the same CPU for
the run, each on a CPU no other run of this process is pinned to, while the process has fewer
runs than CPUs. Busier than that, a new run is not pinned: pinned threads cannot move to a CPU
that frees up, and the grading threads of one process also take turns at the GIL, so under load
the scheduler's freedom is worth more than the cheaper wake-ups (measured with 4 and 8 grades at
once: about 12 grades per second with pinning, 14.5 without).

The pinning is a performance measure only: a solution may change its own affinity (within the
host's cpuset) and gains nothing by it beyond the CPU share its cgroup already gives it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class PinnedThread:
    """One run's place: the CPU its thread was pinned to, if any; :meth:`CoreAssignment.release` ends it."""

    cpu: int | None  # None: not pinned (the process was busy)
    thread: int
    previous: frozenset[int]


class CoreAssignment:
    """Counts the runs pinned to each CPU of this process, and pins threads to a free one."""

    def __init__(self, cpus: set[int] | None = None) -> None:
        self.cpus = sorted(cpus if cpus is not None else os.sched_getaffinity(0))
        self._runs = dict.fromkeys(self.cpus, 0)
        self._active = 0  # pinned or not
        # Worker processes on one host each count only their own runs; starting each at a CPU of
        # its own (by pid) keeps single-run workers from all pinning to the first CPU.
        self._turn = itertools.count(os.getpid())
        self._lock = threading.Lock()

    def pin_current_thread(self) -> PinnedThread:
        """Count a run; pin the calling thread to a free CPU (taking turns) if the process is not busy."""
        previous = frozenset(os.sched_getaffinity(0))
        with self._lock:
            self._active += 1
            free = [cpu for cpu in self.cpus if self._runs[cpu] == 0]
            if self._active > len(self.cpus) or not free:
                return PinnedThread(None, threading.get_ident(), frozenset())
            cpu = free[next(self._turn) % len(free)]
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
            self._active -= 1
            if pinned.cpu is not None:
                self._runs[pinned.cpu] -= 1
        if pinned.previous and threading.get_ident() == pinned.thread:
            with contextlib.suppress(OSError):  # a cpuset changed under us: never fail a grade for it
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
