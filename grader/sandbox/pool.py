"""The zygote pool: up to ``size`` zygotes, each lent to one run at a time, safe to use from many threads.

A zygote serves one run at a time (so each concurrent run still has a uid of its own), is replaced
when it dies, and never runs student code itself. The pool also keeps the spare runs and the
thread that tidies up after closed runs. What it starts is injectable (``new_zygote``,
``start_spare``), so its locking can be tested without root or bubblewrap.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from grader.sandbox.background import Background
from grader.sandbox.endings import SandboxUnavailable
from grader.sandbox.limits import Limits
from grader.sandbox.spares import Spare, SpareRuns

POOL_SIZE = 8
SPARE_RUNS = 1
_CLOSE_SECONDS = 8.0


class Lendable(Protocol):
    """What the pool needs of a zygote."""

    def alive(self) -> bool: ...

    def stop(self) -> None: ...


Z = TypeVar("Z", bound=Lendable)


class ZygotePool(Generic[Z]):
    """Up to ``size`` zygotes made by ``new_zygote``, and the spare runs ``start_spare`` makes on them."""

    def __init__(
        self,
        new_zygote: Callable[[], Z],
        start_spare: Callable[[ZygotePool[Z], Limits], Spare] | None = None,
        *,
        size: int = POOL_SIZE,
        spares: int = SPARE_RUNS,
    ) -> None:
        self.size = size
        self._new = new_zygote
        self._idle: list[Z] = []
        self._count = 0  # idle, lent out, or starting
        self._waiting = 0  # submissions blocked in acquire(): spares must not take zygotes from them
        self._closed = False
        self._changed = threading.Condition()
        starter = start_spare or _no_spares
        self.spares = SpareRuns(lambda limits: starter(self, limits), spares if start_spare else 0)
        self._tidying = Background("mlkata-close-runs")

    def try_acquire(self) -> Z | None:
        """An idle zygote, or a new one if the pool has room; ``None`` rather than waiting."""
        with self._changed:
            if self._closed or self._waiting:
                return None
            zygote = self._idle_zygote_locked()
            if zygote is not None:
                return zygote
            if self._count >= self.size:
                return None
            self._count += 1
        return self._new_zygote()

    def acquire(self) -> Z:
        """A live, idle zygote; start one if fewer than ``size`` exist, else wait for one."""
        with self._changed:
            while True:
                if self._closed:
                    raise SandboxUnavailable("the zygote pool is closed")
                zygote = self._idle_zygote_locked()
                if zygote is not None:
                    return zygote
                if self._count < self.size:
                    self._count += 1
                    break
                self._waiting += 1
                try:
                    self._changed.wait()
                finally:
                    self._waiting -= 1
        return self._new_zygote()

    def _idle_zygote_locked(self) -> Z | None:
        """An idle zygote that is still alive (dead ones are dropped); the caller holds the lock."""
        while self._idle:
            zygote = self._idle.pop()
            if zygote.alive():
                return zygote
            self._count -= 1
            zygote.stop()
        return None

    def _new_zygote(self) -> Z:
        """Start a zygote in a slot already counted; give the slot back if it fails."""
        try:
            return self._new()
        except BaseException:
            with self._changed:
                self._count -= 1
                self._changed.notify()
            raise

    def release(self, zygote: Z, *, healthy: bool) -> None:
        """Take a zygote back; a broken one is stopped and will be replaced on demand."""
        with self._changed:
            keep = healthy and not self._closed and zygote.alive()
            if keep:
                self._idle.append(zygote)
            else:
                self._count -= 1
            self._changed.notify()
        if not keep:
            zygote.stop()

    def tidy_up(self, work: Callable[[], None]) -> None:
        """Run ``work`` (a killed run's tidying up) on a background thread."""
        self._tidying.submit(work)

    def settle(self, timeout: float = 10.0) -> bool:
        """Wait until killed runs are tidied up and no spare is being started."""
        return self._tidying.settle(timeout) and self.spares.settle(timeout)

    def close(self) -> None:
        self.spares.close()
        self._tidying.settle(_CLOSE_SECONDS)
        with self._changed:
            self._closed = True
            idle, self._idle = self._idle, []
            self._count -= len(idle)
            self._changed.notify_all()
        for zygote in idle:
            zygote.stop()


def _no_spares(pool: object, limits: Limits) -> Spare:
    raise AssertionError("a pool without a spare factory starts no spares")
