"""cgroup v1: one hierarchy per controller (hybrid hosts such as Debian 12 on older systemd setups).

A run has one directory per controller (``memory/``, ``pids/``, ``cpu/``, ``cpuacct/``,
``freezer/``; one for several where the host mounts them together, as ``cpu,cpuacct``), and a
process must be written into each. ``cpuacct.usage`` is the run's CPU time. Memory is
``memory.limit_in_bytes`` plus ``memory.memsw.limit_in_bytes`` (memory + swap, when swap
accounting exists). The OOM killer takes one victim (often a child) and counts it in
``memory.oom_control``, so a watcher thread, woken through ``cgroup.event_control``, kills the rest
of the run as v2's ``memory.oom.group`` would. Killing freezes the group (``freezer.state``) so
nothing can fork, sends SIGKILL to every task, then thaws it so the signals are delivered.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
import time
from pathlib import Path

from grader.sandbox.cgroups.files import flat_keyed, write
from grader.sandbox.cgroups.run import RunCgroup
from grader.sandbox.limits import Limits
from grader.sandbox.policy import memory_limit_mb, pids_limit

log = logging.getLogger(__name__)
CONTROLLERS = ("memory", "pids", "cpu", "cpuacct", "freezer")


class V1RunCgroup(RunCgroup):
    _oom_event = -1

    def configure(self, limits: Limits) -> None:
        memory_dir, pids_dir = self.dirs["memory"], self.dirs["pids"]
        memory = memory_limit_mb(limits) << 20
        write(memory_dir / "memory.limit_in_bytes", memory)
        if (memory_dir / "memory.memsw.limit_in_bytes").exists():  # only with swap accounting
            write(memory_dir / "memory.memsw.limit_in_bytes", memory)
        write(memory_dir / "memory.swappiness", 0)
        if "cpu" in self.dirs:
            write(self.dirs["cpu"] / "cpu.shares", 1024)
        self._watch_oom(memory_dir)
        write(pids_dir / "pids.max", pids_limit(limits))

    def _watch_oom(self, memory_dir: Path) -> None:
        """Be woken when the kernel reports an OOM here, to end the whole run as v2 would."""
        event = os.eventfd(0, os.EFD_CLOEXEC | os.EFD_NONBLOCK)
        control = os.open(memory_dir / "memory.oom_control", os.O_RDONLY | os.O_CLOEXEC)
        try:
            write(memory_dir / "cgroup.event_control", f"{event} {control}")
        except OSError:
            os.close(event)
            raise
        finally:
            os.close(control)
        self._oom_event = event
        _watcher().watch(event, self)

    def _released(self) -> None:
        if self._oom_event >= 0:
            _watcher().unwatch(self._oom_event)
            self._oom_event = -1

    def oom_killed(self) -> bool:
        counts = flat_keyed(self.dirs["memory"] / "memory.oom_control")
        return counts.get("oom_kill", 0) > 0

    def under_oom(self) -> bool:
        return bool(flat_keyed(self.dirs["memory"] / "memory.oom_control").get("under_oom"))

    def cpu_seconds(self) -> float | None:
        if "cpuacct" not in self.dirs:
            return None
        with contextlib.suppress(OSError, ValueError):
            return int((self.dirs["cpuacct"] / "cpuacct.usage").read_text()) / 1e9
        return None

    def peak_memory(self) -> int | None:
        with contextlib.suppress(OSError, ValueError):
            return int((self.dirs["memory"] / "memory.max_usage_in_bytes").read_text())
        return None

    def _kill_all(self) -> None:
        state = self.dirs["freezer"] / "freezer.state" if "freezer" in self.dirs else None
        frozen = False
        if state is not None:
            with contextlib.suppress(OSError):
                write(state, "FROZEN")
                frozen = True
                # Wait for the freeze to take hold, so that no task forks between listing and killing.
                deadline = time.monotonic() + 0.5
                while time.monotonic() < deadline and state.read_text().strip() != "FROZEN":
                    time.sleep(0.001)
        self.kill_listed(frozen=frozen)
        if frozen and state is not None:
            with contextlib.suppress(OSError):
                write(state, "THAWED")  # the killed tasks now die


class _OomWatcher:
    """One thread for every v1 run: wakes on an OOM event and kills that run's whole cgroup."""

    def __init__(self) -> None:
        self._epoll = select.epoll()
        self._runs: dict[int, V1RunCgroup] = {}
        self._lock = threading.Lock()
        threading.Thread(target=self._loop, name="mlkata-cgroup-oom", daemon=True).start()

    def watch(self, event_fd: int, run: V1RunCgroup) -> None:
        with self._lock:
            self._runs[event_fd] = run
            self._epoll.register(event_fd, select.EPOLLIN)

    def unwatch(self, event_fd: int) -> None:
        with self._lock:
            self._runs.pop(event_fd, None)
            with contextlib.suppress(OSError):
                self._epoll.unregister(event_fd)
            os.close(event_fd)

    def _loop(self) -> None:
        while True:
            for event_fd, _ in self._epoll.poll():
                with self._lock:
                    run = self._runs.get(event_fd)
                    if run is None:
                        continue
                    with contextlib.suppress(BlockingIOError, OSError):
                        os.read(event_fd, 8)
                if run.oom_killed() or run.under_oom():
                    log.info("out of memory in %s: killing the whole run", run.dirs["memory"])
                    with contextlib.suppress(OSError):
                        run.kill()


_oom_watcher: _OomWatcher | None = None
_oom_watcher_lock = threading.Lock()


def _watcher() -> _OomWatcher:
    global _oom_watcher
    with _oom_watcher_lock:
        if _oom_watcher is None:
            _oom_watcher = _OomWatcher()
        return _oom_watcher
