"""How a run ended, decided once for both paths from its exit status, signal, CPU time and cgroup."""

from __future__ import annotations

import signal

from grader.sandbox import Limits
from grader.sandbox.endings import Ending, ended

LIMITS = Limits(time_seconds=2)  # a CPU limit of 3 s


def test_an_exit_is_the_solutions_exit_with_its_code() -> None:
    died = ended(exit_code=3, signum=None, cpu_seconds=0.1, limits=LIMITS, oom=None)
    assert (died.ending, died.exit_code) == (Ending.EXITED, 3)


def test_sigsys_is_the_seccomp_filter_and_a_blocked_call() -> None:
    died = ended(exit_code=None, signum=signal.SIGSYS, cpu_seconds=0.1, limits=LIMITS, oom=None)
    assert (died.ending, died.signal_name) == (Ending.BLOCKED_SYSCALL, "SIGSYS")


def test_sigxcpu_or_a_sigkill_once_the_cpu_is_spent_is_the_cpu_limit() -> None:
    assert ended(exit_code=None, signum=signal.SIGXCPU, cpu_seconds=1, limits=LIMITS, oom=None).ending is (
        Ending.CPU_LIMIT
    )
    assert ended(exit_code=None, signum=signal.SIGKILL, cpu_seconds=2.99, limits=LIMITS, oom=False).ending is (
        Ending.CPU_LIMIT
    )


def test_another_signal_is_the_solutions_with_what_the_cgroup_saw() -> None:
    died = ended(exit_code=None, signum=signal.SIGKILL, cpu_seconds=0.5, limits=LIMITS, oom=True)
    assert (died.ending, died.signal_name, died.oom) == (Ending.SIGNALLED, "SIGKILL", True)
    assert ended(exit_code=None, signum=99, cpu_seconds=0, limits=LIMITS, oom=None).signal_name == "signal 99"
