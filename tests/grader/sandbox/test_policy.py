"""The jail policy, derived from an exercise's limits in one place for both paths and the cgroup."""

from __future__ import annotations

from grader.sandbox import Limits
from grader.sandbox.policy import (
    CGROUP_TASKS,
    COLD_RUN_TASKS,
    HEADROOM_MB,
    WARM_RUN_TASKS,
    RunPolicy,
    memory_limit_mb,
    pids_limit,
)

LIMITS = Limits(time_seconds=3.5, memory_mb=300, processes=7, scratch_mb=20)


def test_the_cold_path_gets_its_limits_as_prlimit_options() -> None:
    assert RunPolicy.of(LIMITS).prlimit_arguments() == [
        f"--as={300 << 20}", "--cpu=5:6", f"--nproc={7 + COLD_RUN_TASKS}", f"--fsize={20 << 20}", "--core=0",
        "--nofile=64",
    ]  # fmt: skip


def test_the_warm_path_gets_the_same_limits_with_its_own_task_allowance() -> None:
    assert RunPolicy.of(LIMITS).zygote_message() == {
        "memory": 300 << 20, "cpu": 5, "nproc": 7 + WARM_RUN_TASKS, "fsize": 20 << 20, "nofile": 64,
        "scratch": 20 << 20,
    }  # fmt: skip


def test_the_cgroup_ceilings_cover_the_whole_tree() -> None:
    assert memory_limit_mb(LIMITS) == 300 + 2 * 20 + HEADROOM_MB
    assert pids_limit(LIMITS) == 7 + CGROUP_TASKS
    assert max(COLD_RUN_TASKS, WARM_RUN_TASKS) <= CGROUP_TASKS
