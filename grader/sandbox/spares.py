"""Spare runs: started before any submission needs them, so a grade does not wait for one to start.

Starting a run (fork, namespaces, mounts, cgroup, seccomp) costs about as much as the checks of a
small exercise. Up to ``count`` spares wait, each for the limits of the exercise last graded with
them (exercises mostly share the default limits); taking one asks a background thread to start the
next, and a spare for other limits makes way for it. A spare has run no student code and is used
by exactly one submission, like any run; a spare that is no longer pristine (it ended, its zygote
died, it sent something unasked, or the host's cgroups were looked at again since) is closed,
never handed out. Spares start only on idle zygotes that no submission is waiting for (the
factory raises :class:`NoIdleZygote` otherwise), and hold at most ``count``.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from grader.sandbox.limits import Limits
from grader.sandbox.zygote import Exiting

log = logging.getLogger(__name__)
_JOIN_SECONDS = 10.0


class NoIdleZygote(RuntimeError):
    """Every zygote is busy, or a submission waits for one: no spare is started now."""


class Spare(Protocol):
    """What the spares need of a run."""

    limits: Limits

    def pristine(self) -> bool: ...

    def process_ids(self) -> set[int]: ...

    def cgroup_dirs(self) -> list[Path]: ...

    def close(self) -> None: ...


class SpareRuns:
    """Up to ``count`` runs started ahead by ``start`` (which raises :class:`NoIdleZygote` when busy)."""

    def __init__(self, start: Callable[[Limits], Spare], count: int) -> None:
        self.count = count
        self._start = start
        self._ready: list[Spare] = []  # oldest first
        self._wanted: Limits | None = None
        self._closed = False
        self._starting = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def take(self, limits: Limits) -> Spare | None:
        """A pristine spare run with these limits, if one is ready; start its successor either way."""
        if self.count <= 0:
            return None
        with self._changed:
            run = next((r for r in reversed(self._ready) if r.limits == limits), None)
            if run is not None:
                self._ready.remove(run)
            self._want(limits)
        if run is not None and not run.pristine():
            run.close()
            return None
        return run

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until no spare is being started (so the spares' processes and cgroups are all known)."""
        with self._changed:
            return self._changed.wait_for(
                lambda: self._closed or (self._wanted is None and not self._starting), timeout
            )

    def process_ids(self) -> set[int]:
        """Host pids of the spares' processes (which exist with no submission)."""
        pids: set[int] = set()
        for run in self._runs():
            with contextlib.suppress(OSError, ProcessLookupError):
                pids |= run.process_ids()
        return pids

    def cgroup_dirs(self) -> set[str]:
        """The spares' cgroup directories."""
        return {str(path) for run in self._runs() for path in run.cgroup_dirs()}

    def _runs(self) -> list[Spare]:
        with self._changed:
            return list(self._ready)

    def close(self) -> None:
        with self._changed:
            self._closed = True
            runs, self._ready = self._ready, []
            self._changed.notify_all()
        for run in runs:
            run.close()
        if self._thread is not None:
            self._thread.join(_JOIN_SECONDS)  # a spare being started closes itself when it is up

    def _want(self, limits: Limits) -> None:
        self._wanted = limits
        if self._thread is None:
            self._thread = threading.Thread(target=self._start_wanted, name="mlkata-spare-runs", daemon=True)
            self._thread.start()
        self._changed.notify_all()

    def _start_wanted(self) -> None:
        while True:
            evicted: Spare | None = None
            with self._changed:
                while self._wanted is None and not self._closed:
                    self._changed.wait()
                if self._closed:
                    return
                limits, self._wanted = self._wanted, None
                assert limits is not None  # the wait above ends on a wanted run or on closing
                if any(run.limits == limits for run in self._ready):
                    self._changed.notify_all()
                    continue
                if len(self._ready) >= self.count:
                    evicted = self._ready.pop(0)  # spares hold at most ``count`` zygotes
                self._starting = True
            if evicted is not None:
                evicted.close()
            run: Spare | None = None
            exiting = False
            try:
                run = self._start(limits)
            except NoIdleZygote:
                pass  # busy: the next submission starts its own run, and asks again
            except Exiting:
                exiting = True  # nothing more to start, and nothing wrong
            except Exception:
                if not self._closed:  # closing kills what is being started: that is no error
                    log.exception("a spare run did not start")
            with self._changed:
                self._starting = False
                self._closed = self._closed or exiting
                if run is not None and not self._closed:
                    self._ready.append(run)
                    run = None
                self._changed.notify_all()
            if run is not None:
                run.close()
