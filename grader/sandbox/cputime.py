"""A run's CPU time, all of its processes together, as the trusted side reads it.

Where the run has a cgroup, the kernel keeps the sum: ``cpuacct.usage`` (v1) or ``cpu.stat``
``usage_usec`` (v2), exact whatever the run forks and however soon its processes exit. Without
one (the fallback), the grader reads ``/proc`` from the run's top process down: the CPU time of
every live process of the run, and of every child each of them has waited for (an ended process's
time moves into its parent's once the parent waits for it, and the run's init waits for every
orphan). Each process's own ``RLIMIT_CPU`` holds on both.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from grader.sandbox import cgroups

_TICKS = os.sysconf("SC_CLK_TCK")


class RunCpu:
    """The CPU seconds a run's processes have used since it was ready, never decreasing."""

    def __init__(self, cgroup: cgroups.RunCgroup | None, top: int) -> None:
        counted = cgroup.cpu_seconds() if cgroup is not None else None
        self.by_cgroup = counted is not None
        self._read: Callable[[], float | None]
        if cgroup is not None and counted is not None:
            self._read = cgroup.cpu_seconds
        else:
            self._read = lambda: tree_cpu_seconds(top)
            counted = self._read()
        self._start = counted or 0.0
        self._used = 0.0

    def __call__(self) -> float:
        total = self._read()
        if total is not None:
            self._used = max(self._used, total - self._start)
        return self._used

    def ended_with(self, total: float) -> None:
        """The run's top process has been waited for: ``total`` is its tree's CPU time since it started.

        Without a cgroup this is the last reading there will be (the processes are gone from ``/proc``).
        """
        if not self.by_cgroup:
            self._used = max(self._used, total - self._start)


def tree_cpu_seconds(top: int) -> float | None:
    """CPU time of ``top`` and every live process below it, with their waited-for children (None if it is gone)."""
    parent_of: dict[int, int] = {}
    ticks: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue  # ended meanwhile
        # After the command name, which may hold spaces and parentheses: state, ppid, … utime (14th
        # field), stime, cutime, cstime.
        fields = stat[stat.rindex(b")") + 2 :].split()
        pid = int(name)
        parent_of[pid] = int(fields[1])
        ticks[pid] = sum(int(value) for value in fields[11:15])
    if top not in ticks:
        return None
    children: dict[int, list[int]] = {}
    for pid, parent in parent_of.items():
        children.setdefault(parent, []).append(pid)
    total, pending, seen = 0, [top], set()
    while pending:
        pid = pending.pop()
        if pid in seen:
            continue  # a pid reused while /proc was read could make a loop
        seen.add(pid)
        total += ticks[pid]
        pending += children.get(pid, [])
    return total / _TICKS


def how_counted() -> tuple[bool, str]:
    """Whether runs' CPU time is counted by their cgroups on this host, and how it is counted."""
    found = cgroups.status()
    if isinstance(found, cgroups.Host) and found.counts_cpu:
        where = "cpu.stat usage_usec" if found.version == 2 else "cpuacct.usage"
        return True, f"the run's cgroup ({where}): every process it starts, exactly"
    why = found.reason if isinstance(found, cgroups.Fallback) else "the cgroups here have no cpuacct controller"
    return False, (
        f"no cgroup counts it ({why}). Fallback: the run's processes read through /proc (each live one, and the "
        "children each has waited for) and each process's RLIMIT_CPU"
    )
