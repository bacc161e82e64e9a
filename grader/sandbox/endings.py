"""How a run ended before it answered, decided once for both paths, and why a sandbox could not start."""

from __future__ import annotations

import enum
import signal
from dataclasses import dataclass, field

from grader.sandbox.limits import Limits


class SandboxUnavailable(RuntimeError):
    """The sandbox cannot be started on this host; untrusted code must not run."""


class Ending(enum.Enum):
    """Why a runner stopped before answering."""

    CPU_LIMIT = "cpu_limit"  # the run's processes used its CPU time (the time limit)
    WALL_CLOCK = "wall_clock"  # the run waited out its wall-clock limit, the backstop
    OUTPUT_LIMIT = "output_limit"
    REPLY_TOO_LARGE = "reply_too_large"
    MALFORMED_REPLY = "malformed_reply"
    EXITED = "exited"
    SIGNALLED = "signalled"
    BLOCKED_SYSCALL = "blocked_syscall"
    STOPPED = "stopped"  # the grader was asked to stop the run (Run.interrupt)


@dataclass(frozen=True)
class RunnerDied(Exception):
    """The runner ended, or was stopped, before it sent a reply."""

    ending: Ending
    exit_code: int | None = None
    signal_name: str | None = None
    detail: str = ""
    #: The run's cgroup saw the kernel's OOM killer act (True), saw no OOM (False), or there is no cgroup (None).
    oom: bool | None = field(default=None, compare=False)
    #: For a time limit: the CPU time the run had used when it was stopped (None when not known).
    cpu_seconds: float | None = field(default=None, compare=False)


def ended(
    *, exit_code: int | None, signum: int | None, cpu_seconds: float, limits: Limits, oom: bool | None
) -> RunnerDied:
    """How a runner that exited with ``exit_code``, or was killed by ``signum``, ended.

    SIGSYS is the seccomp filter's; SIGXCPU, or a SIGKILL once the CPU limit was spent, is the CPU
    rlimit's; any other signal is the solution's own or, with ``oom``, the memory cgroup's.
    """
    if not signum:
        return RunnerDied(Ending.EXITED, exit_code=exit_code)
    name = signal_name(signum)
    if signum == signal.SIGSYS:
        return RunnerDied(Ending.BLOCKED_SYSCALL, signal_name=name)
    if signum == signal.SIGXCPU or (signum == signal.SIGKILL and cpu_seconds >= limits.cpu_seconds - 0.05):
        return RunnerDied(Ending.CPU_LIMIT, signal_name=name)
    return RunnerDied(Ending.SIGNALLED, signal_name=name, oom=oom)


def signal_name(signum: int) -> str:
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"
