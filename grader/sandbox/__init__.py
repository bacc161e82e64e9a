"""The sandbox: everything that starts, limits, talks to and kills a run. This is its one door.

Inside, one module per concept: what a run may use (``limits``, set per exercise), the jail policy
as data (``policy``), the one bubblewrap command
(``bwrap``), the pipes to a runner (``channel``), how a run ended (``endings``), cold runs
(``cold``) and warm ones forked from zygotes (``zygote``, ``pool``, ``spares``, ``warm``), cgroups
v1 and v2 (``cgroups``), a run's CPU time (``cputime``) and its time limits (``clock``), seccomp,
uid slots, CPU pinning and the doctor. Code outside this package uses only the names below.
"""

from grader.sandbox.bwrap import bwrap_path, require_sandbox
from grader.sandbox.channel import CapturedOutput
from grader.sandbox.clock import RunClock
from grader.sandbox.doctor import Protection, examine
from grader.sandbox.endings import Ending, RunnerDied, SandboxUnavailable
from grader.sandbox.limits import Limits
from grader.sandbox.policy import memory_limit_mb
from grader.sandbox.runs import (
    Run,
    close_pool,
    settle,
    spare_cgroup_dirs,
    spare_process_ids,
    start_runner,
    warm_up,
)

__all__ = [
    "CapturedOutput",
    "Ending",
    "Limits",
    "Protection",
    "Run",
    "RunClock",
    "RunnerDied",
    "SandboxUnavailable",
    "bwrap_path",
    "close_pool",
    "examine",
    "memory_limit_mb",
    "require_sandbox",
    "settle",
    "spare_cgroup_dirs",
    "spare_process_ids",
    "start_runner",
    "warm_up",
]
