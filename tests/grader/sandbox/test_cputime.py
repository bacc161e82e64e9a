"""A run's CPU time, read from outside: every process of its tree, through its cgroup or through /proc.

Real runs on both paths, with the host's cgroups and with none (the module pointed at an empty
directory, as test_cgroups.py does); the runner itself only waits while its children compute.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from grader.sandbox import Ending, RunClock, RunnerDied, cgroups
from grader.sandbox.cputime import how_counted, tree_cpu_seconds
from grader.sandbox.pool import ZygotePool
from grader.sandbox.zygote import Zygote
from tests.grader.sandbox.warm_support import Probed, cold_run, warm_run

# A parent that waited for one child (0.3 s of CPU, ended) and has another that computes and never ends.
FAMILY = textwrap.dedent("""
    import os, sys, time
    if os.fork() == 0:
        while time.process_time() < 0.3:
            pass
        os._exit(0)
    os.wait()
    if os.fork() == 0:
        while True:
            pass
    print("ready", flush=True)
    time.sleep(60)
""")


@pytest.fixture(params=["cgroup", "proc"])
def counted_by(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Each run's CPU time counted by its cgroup, or (an empty mount root: no cgroups) through /proc."""
    cgroups.use_mount_root(None if request.param == "cgroup" else tmp_path)
    assert how_counted()[0] is (request.param == "cgroup")
    yield request.param
    cgroups.use_mount_root(None)


def test_the_tree_under_a_process_counts_its_live_children_and_the_ones_it_waited_for() -> None:
    # A session of its own, so that the whole family is killed at the end: its computing child never ends.
    family = subprocess.Popen(
        [sys.executable, "-I", "-c", FAMILY], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert family.stdout is not None and family.stdout.readline() == "ready\n"
        first = tree_cpu_seconds(family.pid)
        assert first is not None and first >= 0.29  # the ended child's, in its parent's cutime (ticks round down)
        deadline = time.monotonic() + 60
        while (tree_cpu_seconds(family.pid) or 0) < first + 0.2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert (tree_cpu_seconds(family.pid) or 0) >= first + 0.2  # the live child's, growing
    finally:
        os.killpg(family.pid, signal.SIGKILL)
        family.wait()
        assert family.stdout is not None
        family.stdout.close()
    assert tree_cpu_seconds(family.pid) is None


@pytest.mark.parametrize("path", ["warm", "cold"])
def test_a_run_whose_children_compute_is_stopped_at_its_cpu_limit(
    pool: ZygotePool[Zygote], counted_by: str, path: str
) -> None:
    start: Callable[[], AbstractContextManager[Probed]] = (lambda: warm_run(pool)) if path == "warm" else cold_run
    clock = RunClock(cpu_seconds=0.5, wall_seconds=600)
    with start() as run:
        assert (run.process.cgroup is not None) is (counted_by == "cgroup")
        died = run.died("spin_in_children", clock=clock)
    assert died == RunnerDied(Ending.CPU_LIMIT)  # stopped by the grader, not by a process's rlimit
    # The children's time (the runner itself only waited), a little past the limit: by how much depends
    # on how late a busy host lets the grader look, so the bound is generous.
    assert 0.5 <= clock.cpu_used < 3.0


@pytest.mark.parametrize("path", ["warm", "cold"])
def test_starting_the_sandbox_is_not_the_runs_cpu_time_and_waiting_costs_none(
    pool: ZygotePool[Zygote], counted_by: str, path: str
) -> None:
    start: Callable[[], AbstractContextManager[Probed]] = (lambda: warm_run(pool)) if path == "warm" else cold_run
    with start() as run:
        clock = RunClock(cpu_seconds=0.2, wall_seconds=600)
        assert run.call("nap", clock=clock) == "rested"  # 0.3 s asleep: within 0.2 s of CPU time
        assert clock.cpu_used < 0.1  # loading the probes and sleeping; not Python's and numpy's start
        assert clock.wall_used >= 0.3
