"""Starting runs, and the process-wide zygote pool behind the warm ones."""

from __future__ import annotations

import os
import threading
from typing import Protocol

from grader.sandbox.cgroups import RunCgroup
from grader.sandbox.channel import CapturedOutput
from grader.sandbox.clock import RunClock
from grader.sandbox.cold import ColdRun
from grader.sandbox.limits import Limits
from grader.sandbox.pool import POOL_SIZE, SPARE_RUNS, ZygotePool
from grader.sandbox.warm import WarmRun
from grader.sandbox.zygote import Zygote


class Run(Protocol):
    """One runner, cold or warm: the grader talks to it, reads what it printed, and ends it."""

    limits: Limits
    #: The run's cgroup (None without one: the fallback, or not jailed).
    cgroup: RunCgroup | None

    @property
    def pid(self) -> int: ...

    @property
    def output(self) -> CapturedOutput: ...

    def exchange(self, frame: bytes, clock: RunClock) -> bytearray:
        """Send a request frame; the reply's body, or :class:`~grader.sandbox.RunnerDied` saying how the run ended.

        The run is stopped when ``clock`` says a time limit is reached.
        """
        ...

    def cpu_seconds(self) -> float:
        """CPU time the run's processes have used together since it was ready."""
        ...

    def drain_output(self, seconds: float = 0.05) -> None: ...

    def kill(self) -> None: ...

    def interrupt(self) -> None:
        """From any thread: end the run now; the thread talking to it gets ``RunnerDied(Ending.STOPPED)``."""
        ...

    def close(self) -> None: ...

    def close_soon(self) -> None:
        """Close without making the caller wait for the tidying up (where the kind of run allows it)."""
        ...


_default_pool: ZygotePool[Zygote] | None = None
_default_pool_lock = threading.Lock()


def new_pool(*, size: int = POOL_SIZE, spares: int = SPARE_RUNS) -> ZygotePool[Zygote]:
    """A pool of real zygotes, whose spare runs are warm runs."""
    return ZygotePool(Zygote, _start_spare, size=size, spares=spares)


def default_pool() -> ZygotePool[Zygote]:
    """The process-wide pool, made on first use."""
    global _default_pool
    with _default_pool_lock:
        if _default_pool is None:
            _default_pool = new_pool()
        return _default_pool


def _start_spare(pool: ZygotePool[Zygote], limits: Limits) -> WarmRun:
    return WarmRun(limits, pool=pool, wait_for_zygote=False)


def start_runner(limits: Limits, *, jailed: bool, warm: bool = True) -> Run:
    """A runner for one solution: warm (forked from a zygote) when asked and possible, else cold.

    The warm path needs the jail and root; without them this falls back to the cold path.
    ``jailed=False`` runs without any sandbox, for an instructor's own files.
    """
    if warm and jailed and os.geteuid() == 0:
        pool = default_pool()
        spare = pool.spares.take(limits)
        run = spare if isinstance(spare, WarmRun) else WarmRun(limits, pool=pool)
        run.attach()
        return run
    return ColdRun(limits, jailed=jailed)


def warm_up() -> None:
    """Start the warm pool's first zygote now, so the first submission does not wait for it."""
    pool = default_pool()
    pool.release(pool.acquire(), healthy=True)


def close_pool() -> None:
    """Stop the warm pool's zygotes and spare runs (a worker that is shutting down)."""
    default_pool().close()


def settle(timeout: float = 10.0) -> bool:
    """Wait until closed runs are tidied up and no spare run is being started (tests look for leftovers)."""
    return default_pool().settle(timeout)


def spare_process_ids() -> set[int]:
    """Host pids of the spare runs' processes, which exist with no submission."""
    return default_pool().spares.process_ids()


def spare_cgroup_dirs() -> set[str]:
    """The spare runs' cgroup directories."""
    return default_pool().spares.cgroup_dirs()
