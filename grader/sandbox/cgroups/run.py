"""One run's cgroup: what both versions do alike. :mod:`v1` and :mod:`v2` fill in what differs."""

from __future__ import annotations

import abc
import contextlib
import errno
import logging
import os
import signal
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from grader.sandbox.cgroups.files import write
from grader.sandbox.limits import Limits

if TYPE_CHECKING:
    from grader.sandbox.cgroups.host import Host

log = logging.getLogger(__name__)
SETTLE_SECONDS = 2.0


class CgroupError(RuntimeError):
    """A run's cgroup could not be made or joined although the host offers cgroups."""


class RunCgroup(abc.ABC):
    """One run's cgroup: one directory per v1 hierarchy, or one v2 directory."""

    def __init__(self, host: Host, dirs: dict[str, Path]) -> None:
        self.host = host
        self.dirs = dirs
        self.made: list[Path] = []  # directories this object created, removed by remove()
        self._lock = threading.Lock()

    @abc.abstractmethod
    def configure(self, limits: Limits) -> None:
        """Write the run's ceilings: memory (no swap), tasks, a CPU share; arm the OOM reporting."""

    @abc.abstractmethod
    def oom_killed(self) -> bool:
        """Whether the kernel's OOM killer killed a process of this run (the memory limit was hit)."""

    @abc.abstractmethod
    def cpu_seconds(self) -> float | None:
        """CPU time used by every process that has been in the run, or None where this hierarchy does not count it."""

    @abc.abstractmethod
    def peak_memory(self) -> int | None:
        """The most memory the run used at once, in bytes, when the kernel keeps it."""

    @abc.abstractmethod
    def _kill_all(self) -> None:
        """Send SIGKILL to every task of the run, including any it forks meanwhile."""

    def _released(self) -> None:  # noqa: B027  (a hook: nothing to let go of unless a version says so)
        """Let go of anything watching the run, before its directories are removed."""

    @property
    def unique_dirs(self) -> list[Path]:
        return list(dict.fromkeys(self.dirs.values()))

    def join_command(self) -> list[str]:
        """A ``sh`` prefix that moves itself into this cgroup, then execs the rest of the command.

        The process keeps its pid across ``exec``, so bwrap and everything it forks start inside.
        If joining fails it exits 126 with a message instead of running unconfined.
        """
        procs = [str(directory / "cgroup.procs") for directory in self.unique_dirs]
        writes = " && ".join(f'echo $$ > "${index}"' for index in range(1, len(procs) + 1))
        failed = 'echo "mlkata: cannot join the run cgroup" >&2; exit 126'
        script = f'{writes} && shift {len(procs)} && exec "$@"; {failed}'
        return ["/bin/sh", "-c", script, "sh", *procs]

    def add(self, pid: int) -> None:
        """Move a process (by its pid in the grader's pid namespace) into this cgroup."""
        try:
            for directory in self.unique_dirs:
                write(directory / "cgroup.procs", pid)
        except OSError as exc:
            raise CgroupError(f"cannot move process {pid} into the run's cgroup: {exc}") from None

    def procs(self) -> set[int]:
        """Every process in the run (every hierarchy holds the same ones; read the first)."""
        try:
            text = (self.unique_dirs[0] / "cgroup.procs").read_text()
        except OSError:
            return set()
        return {int(line) for line in text.split()}

    def kill_member(self, pid: int) -> None:
        """SIGKILL ``pid`` only if it is still a process of this run.

        A pid read from ``cgroup.procs`` may belong to a process that exits before the signal, and
        then to any new process on the host (another run's, say): never kill by number alone. A
        pidfd pins one process; if that process is in this cgroup after it is pinned, the signal
        can reach nobody else.
        """
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            return
        try:
            if pid in self.procs():
                with contextlib.suppress(ProcessLookupError):
                    signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        finally:
            os.close(pidfd)

    def kill(self, settle: float = SETTLE_SECONDS) -> None:
        """SIGKILL every process of the run, including any it forks meanwhile; wait until none is left."""
        with self._lock:
            if not self.procs():
                return
            self._kill_all()
            deadline = time.monotonic() + settle
            while self.procs() and time.monotonic() < deadline:
                time.sleep(0.002)

    def kill_listed(self, *, frozen: bool) -> None:
        """SIGKILL the tasks ``cgroup.procs`` lists: once when frozen, else until none is left."""
        for _ in range(100):  # without a freezer, pids.max bounds how many forks can race us
            pids = self.procs()
            if not pids:
                return
            for pid in pids:
                self.kill_member(pid)
            if frozen:
                return

    def remove(self) -> None:
        """Kill whatever is left and delete the run's directories."""
        self._released()
        self.kill()
        for directory in reversed(self.made):
            deadline = time.monotonic() + SETTLE_SECONDS
            while True:
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError as exc:
                    if exc.errno != errno.EBUSY or time.monotonic() > deadline:
                        log.warning("could not remove the run cgroup %s: %s", directory, exc)
                        break
                    time.sleep(0.005)
        self.made.clear()
