"""cgroup v2: one unified hierarchy (modern hosts and most containers).

A run has one directory; controllers are enabled for children in the parent's
``cgroup.subtree_control`` (impossible in a non-root cgroup that itself holds processes: the "no
internal processes" rule, which is why a container whose root cgroup holds its processes cannot
delegate, and falls back). Memory is ``memory.max`` plus ``memory.swap.max = 0``;
``memory.oom.group = 1`` makes the kernel kill the whole run, and ``memory.events`` counts it.
Killing writes ``cgroup.kill`` (or freezes with ``cgroup.freeze`` on kernels without it).
"""

from __future__ import annotations

import contextlib

from grader.sandbox.cgroups.files import flat_keyed, write
from grader.sandbox.cgroups.run import RunCgroup
from grader.sandbox.limits import Limits
from grader.sandbox.policy import memory_limit_mb, pids_limit

UNIFIED = "unified"


class V2RunCgroup(RunCgroup):
    def configure(self, limits: Limits) -> None:
        directory = self.dirs[UNIFIED]
        write(directory / "memory.max", memory_limit_mb(limits) << 20)
        if (directory / "memory.swap.max").exists():
            write(directory / "memory.swap.max", 0)
        write(directory / "memory.oom.group", 1)  # an OOM kills the whole run, not one victim
        if "cpu" in self.host.controllers:
            write(directory / "cpu.weight", 100)
        write(directory / "pids.max", pids_limit(limits))

    def oom_killed(self) -> bool:
        counts = flat_keyed(self.dirs[UNIFIED] / "memory.events")
        return counts.get("oom_kill", 0) > 0 or counts.get("oom_group_kill", 0) > 0

    def cpu_seconds(self) -> float | None:
        # cpu.stat's usage_usec is kept in every cgroup, whether the cpu controller is enabled or not.
        usage = flat_keyed(self.dirs[UNIFIED] / "cpu.stat").get("usage_usec")
        return usage / 1e6 if usage is not None else None

    def peak_memory(self) -> int | None:
        with contextlib.suppress(OSError, ValueError):
            return int((self.dirs[UNIFIED] / "memory.peak").read_text())
        return None

    def _kill_all(self) -> None:
        directory = self.dirs[UNIFIED]
        if (directory / "cgroup.kill").exists():
            with contextlib.suppress(OSError):
                write(directory / "cgroup.kill", 1)
            return
        frozen = False
        with contextlib.suppress(OSError):
            write(directory / "cgroup.freeze", 1)
            frozen = True
        self.kill_listed(frozen=frozen)
        if frozen:
            with contextlib.suppress(OSError):
                write(directory / "cgroup.freeze", 0)  # the killed tasks now die
