"""The warm path through real zygotes and real namespaces: isolation, limits and verdicts.

These need root and bubblewrap, like the cold sandbox; they fail (never skip) without them.
"""

from __future__ import annotations

import os
import threading
from typing import Any

import pytest

from grader.exercise import Exercise
from grader.grading.engine import grade
from grader.results.records import Status
from grader.sandbox import Ending, Limits, RunClock, RunnerDied
from grader.sandbox.pool import ZygotePool
from grader.sandbox.runs import new_pool
from grader.sandbox.warm import WarmRun
from grader.sandbox.zygote import Zygote
from tests.grader.sandbox.warm_support import cold_run, warm_run


def _processes_of(uid: int) -> dict[int, str]:
    found = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    with open(f"/proc/{name}/cmdline", "rb") as handle:
                        found[int(name)] = handle.read().replace(b"\0", b" ").decode()
            except OSError:
                continue
    return found


def test_consecutive_runs_from_one_zygote_see_no_files_processes_or_globals_of_each_other() -> None:
    single = new_pool(size=1)
    try:
        with warm_run(single) as first:
            zygote = first.process.zygote.pid
            assert first.call("leave_traces") == ["secret.txt"]
            first.call("start_daemon")
        with warm_run(single) as second:
            assert second.process.zygote.pid == zygote  # the same zygote served both
            assert second.call("traces") == {"tmp": [], "shm": [], "numpy": False, "os": False, "solution": False}
            assert second.call("pids") == [1, 2]  # the first run's daemon is gone
    finally:
        single.close()


def test_proc_inside_a_run_shows_only_that_runs_processes(pool: ZygotePool[Zygote]) -> None:
    with warm_run(pool) as run:
        assert run.call("pids") == [1, 2]  # its init and the runner
        assert run.call("start_daemon") == [1, 2, 4]  # the forked child exited; its daemon stays
        assert run.call("random_numbers") != run.call("random_numbers")


def test_a_run_has_no_capabilities_no_new_privs_and_no_network(pool: ZygotePool[Zygote]) -> None:
    with warm_run(pool) as run:
        zero = "0000000000000000"
        assert run.call("status") == {"CapEff": zero, "CapPrm": zero, "CapBnd": zero, "CapAmb": zero, "NoNewPrivs": "1"}
        assert run.call("interfaces") == ["lo"]
        assert run.call("connect") != "connected"


def test_a_fork_bomb_in_one_run_is_capped_and_does_not_stop_another(pool: ZygotePool[Zygote]) -> None:
    with warm_run(pool, Limits(processes=4)) as bomb:
        made, errno = bomb.call("fork_bomb")
        assert (made, errno) == (4, 11)  # EAGAIN once the run's own processes reach the limit
        with warm_run(pool, Limits(processes=4)) as other:
            assert other.call("fork_once") == 7
            assert other.call("fork_bomb")[0] == 4  # its own full allowance, bomb or not


def test_a_timeout_kills_the_runs_whole_pid_namespace_daemons_included(pool: ZygotePool[Zygote]) -> None:
    with warm_run(pool) as run:
        uid = run.process.zygote.slot.uid
        run.call("start_daemon")
        # The zygote, the launcher, the init, the runner and the daemon all run as the slot's uid.
        assert len(_processes_of(uid)) == 5
        died = run.died("spin", seconds=0.5)
        assert died.ending is Ending.WALL_CLOCK
    survivors = _processes_of(uid)
    assert len(survivors) == 1, survivors
    assert "jail/__main__.py" in next(iter(survivors.values()))  # only the zygote itself is left


def test_exit_codes_and_signals_are_reported_as_on_the_cold_path(pool: ZygotePool[Zygote]) -> None:
    with warm_run(pool) as run:
        warm_exit = run.died("exit_three")
    with warm_run(pool) as run:
        warm_signal = run.died("segfault")
    with cold_run() as run:
        cold_exit = run.died("exit_three")
    with cold_run() as run:
        cold_signal = run.died("segfault")
    assert warm_exit == cold_exit == RunnerDied(Ending.EXITED, exit_code=3)
    assert warm_signal == cold_signal == RunnerDied(Ending.SIGNALLED, signal_name="SIGSEGV")


def test_the_cpu_limit_stops_a_busy_run(pool: ZygotePool[Zygote]) -> None:
    # The grader's own limit: the run's CPU time, read from outside, whatever the wall clock says.
    clock = RunClock(cpu_seconds=0.5, wall_seconds=600)
    with warm_run(pool) as run:
        died = run.died("spin", clock=clock)
    assert died == RunnerDied(Ending.CPU_LIMIT)  # stopped by the grader: no SIGXCPU from the rlimit (2 s)
    # Past the limit by what the run computed before the grader's next look: how late that look comes
    # depends on how busy the host is, so the bound is the rlimit's, not a guess at the host's speed.
    assert 0.5 <= clock.cpu_used < 2.0


def test_each_processs_rlimit_stops_a_busy_run_that_the_grader_does_not_watch(pool: ZygotePool[Zygote]) -> None:
    # A second line: RLIMIT_CPU (time_seconds + 1 in whole seconds) with only a generous wall clock watching.
    with warm_run(pool, Limits(time_seconds=0.5)) as run:
        died = run.died("spin", seconds=600)
    assert died == RunnerDied(Ending.CPU_LIMIT, signal_name="SIGXCPU")


def test_the_memory_limit_makes_a_numpy_bomb_raise_memory_error(pool: ZygotePool[Zygote]) -> None:
    with warm_run(pool, Limits(memory_mb=256)) as run:
        assert run.reply("memory_bomb")["raised"]["type"] == "MemoryError"
        assert run.call("fork_once") == 7  # the run is still usable


def test_a_dead_zygote_is_replaced() -> None:
    single = new_pool(size=1)
    try:
        with warm_run(single) as run:
            zygote = run.process.zygote
        zygote.stop()
        with warm_run(single) as run:
            assert run.process.zygote is not zygote
            assert run.call("pids") == [1, 2]
    finally:
        single.close()


def test_a_zygote_outlives_the_thread_that_needed_it_first() -> None:
    # Regression: bubblewrap's parent-death signal followed the thread that started the zygote, so a
    # zygote died, mid-run for another thread, when the grading thread that made it ended.
    single = new_pool(size=1)
    made: list[Zygote] = []
    try:
        needs_one = threading.Thread(target=lambda: made.append(single.acquire()))
        needs_one.start()
        needs_one.join()
        single.release(made[0], healthy=True)
        with warm_run(single) as run:
            assert run.process.zygote is made[0]
            assert run.call("pids") == [1, 2]
    finally:
        single.close()


def test_eight_threads_can_run_at_once() -> None:
    eight = new_pool(size=8)
    results: list[Any] = []

    def one() -> None:
        with warm_run(eight) as run:
            results.append(run.call("fork_once"))

    try:
        threads = [threading.Thread(target=one) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert results == [7] * 8
    finally:
        eight.close()


def test_the_kv_reference_grades_the_same_warm_as_cold(kv_exercise: Exercise, monkeypatch: pytest.MonkeyPatch) -> None:
    source = kv_exercise.reference_path.read_text()
    cold = grade(kv_exercise, source, warm=False)
    started = []
    original = WarmRun.__init__

    def counting(self: WarmRun, *args: Any, **kwargs: Any) -> None:
        started.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(WarmRun, "__init__", counting)
    warm = grade(kv_exercise, source, warm=True)
    assert started, "the warm path was not used"
    assert warm.status is cold.status is Status.PASS
    assert [(t.name, t.status, t.points) for t in warm.tests] == [(t.name, t.status, t.points) for t in cold.tests]
