"""The warm path through real zygotes and real namespaces: isolation, limits and verdicts.

These need root and bubblewrap, like the cold sandbox; they fail (never skip) without them.
"""

from __future__ import annotations

import os
import textwrap
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from grader.exercise import Exercise
from grader.grading import grade
from grader.limits import Limits
from grader.results import Status
from grader.sandbox import Ending, RunnerDied, RunnerProcess
from grader.warm import WarmRunnerProcess, ZygotePool
from runner import wire

PROBES = """
import os, signal, socket, sys, time

import numpy as np


def status():
    fields = dict(line.split(":", 1) for line in open("/proc/self/status").read().splitlines())
    return {name: fields[name].strip() for name in ("CapEff", "CapPrm", "CapBnd", "CapAmb", "NoNewPrivs")}


def pids():
    return sorted(int(name) for name in os.listdir("/proc") if name.isdigit())


def interfaces():
    return [line.split(":")[0].strip() for line in open("/proc/self/net/dev").read().splitlines()[2:]]


def connect():
    try:
        socket.create_connection(("127.0.0.1", 5432), timeout=1)
    except OSError as exc:
        return type(exc).__name__
    return "connected"


def leave_traces():
    with open("/tmp/secret.txt", "w") as handle:
        handle.write("answer")
    np.LEFT_BEHIND = True
    sys.modules["os"].LEFT_BEHIND = True
    return sorted(os.listdir("/tmp"))


def traces():
    return {
        "tmp": sorted(os.listdir("/tmp")),
        "shm": sorted(os.listdir("/dev/shm")),
        "numpy": hasattr(np, "LEFT_BEHIND"),
        "os": hasattr(os, "LEFT_BEHIND"),
        "solution": "solution" in sys.modules and hasattr(sys.modules["solution"], "COUNTER"),
    }


def start_daemon():
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(600)
        os._exit(0)
    os.waitpid(child, 0)
    return pids()


def fork_bomb():
    made = 0
    while True:
        try:
            pid = os.fork()
        except OSError as exc:
            return [made, exc.errno]
        if pid == 0:
            time.sleep(600)
            os._exit(0)
        made += 1


def fork_once():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


def spin():
    while True:
        pass


def exit_three():
    os._exit(3)


def segfault():
    os.kill(os.getpid(), signal.SIGSEGV)


def memory_bomb():
    return np.ones(10**10).sum()


def random_numbers():
    return np.random.rand(3).tolist()
"""


@pytest.fixture(scope="module")
def pool() -> Iterator[ZygotePool]:
    zygotes = ZygotePool(size=2)
    yield zygotes
    zygotes.close()


class Run:
    """One submission through the warm (or cold) path, with the probes loaded."""

    def __init__(self, process: RunnerProcess) -> None:
        self.process = process
        reply = self._exchange({"op": "load", "source": textwrap.dedent(PROBES), "functions": []}, 10)
        assert reply.get("ok") is True, reply

    def _exchange(self, request: dict[str, Any], seconds: float) -> dict[str, Any]:
        return wire.decode(self.process.exchange(wire.encode(request), time.monotonic() + seconds))

    def reply(self, function: str, seconds: float = 10) -> dict[str, Any]:
        return self._exchange({"op": "call", "function": function, "args": []}, seconds)

    def call(self, function: str, seconds: float = 10) -> Any:
        reply = self.reply(function, seconds)
        assert reply.get("ok") is True, reply
        return reply["value"]

    def died(self, function: str, seconds: float = 10) -> RunnerDied:
        with pytest.raises(RunnerDied) as caught:
            self.reply(function, seconds)
        return caught.value


@contextmanager
def warm_run(pool: ZygotePool, limits: Limits | None = None) -> Iterator[Run]:
    process = WarmRunnerProcess(limits or Limits(), pool=pool)
    try:
        yield Run(process)
    finally:
        process.close()


@contextmanager
def cold_run() -> Iterator[Run]:
    process = RunnerProcess(Limits(), jailed=True)
    try:
        yield Run(process)
    finally:
        process.close()


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
    single = ZygotePool(size=1)
    try:
        with warm_run(single) as first:
            zygote = first.process._zygote.pid
            assert first.call("leave_traces") == ["secret.txt"]
            first.call("start_daemon")
        with warm_run(single) as second:
            assert second.process._zygote.pid == zygote  # the same zygote served both
            assert second.call("traces") == {"tmp": [], "shm": [], "numpy": False, "os": False, "solution": False}
            assert second.call("pids") == [1, 2]  # the first run's daemon is gone
    finally:
        single.close()


def test_proc_inside_a_run_shows_only_that_runs_processes(pool: ZygotePool) -> None:
    with warm_run(pool) as run:
        assert run.call("pids") == [1, 2]  # its init and the runner
        assert run.call("start_daemon") == [1, 2, 4]  # the forked child exited; its daemon stays
        assert run.call("random_numbers") != run.call("random_numbers")


def test_a_run_has_no_capabilities_no_new_privs_and_no_network(pool: ZygotePool) -> None:
    with warm_run(pool) as run:
        zero = "0000000000000000"
        assert run.call("status") == {"CapEff": zero, "CapPrm": zero, "CapBnd": zero, "CapAmb": zero, "NoNewPrivs": "1"}
        assert run.call("interfaces") == ["lo"]
        assert run.call("connect") != "connected"


def test_a_fork_bomb_in_one_run_is_capped_and_does_not_stop_another(pool: ZygotePool) -> None:
    with warm_run(pool, Limits(processes=4)) as bomb:
        made, errno = bomb.call("fork_bomb")
        assert (made, errno) == (4, 11)  # EAGAIN once the run's own processes reach the limit
        with warm_run(pool, Limits(processes=4)) as other:
            assert other.call("fork_once") == 7
            assert other.call("fork_bomb")[0] == 4  # its own full allowance, bomb or not


def test_a_timeout_kills_the_runs_whole_pid_namespace_daemons_included(pool: ZygotePool) -> None:
    with warm_run(pool) as run:
        uid = run.process._zygote.slot.uid
        run.call("start_daemon")
        # The zygote, the launcher, the init, the runner and the daemon all run as the slot's uid.
        assert len(_processes_of(uid)) == 5
        died = run.died("spin", seconds=0.5)
        assert died.ending is Ending.TIMEOUT
    survivors = _processes_of(uid)
    assert len(survivors) == 1, survivors
    assert "zygote.py" in next(iter(survivors.values()))  # only the zygote itself is left


def test_exit_codes_and_signals_are_reported_as_on_the_cold_path(pool: ZygotePool) -> None:
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


def test_the_cpu_limit_stops_a_busy_run(pool: ZygotePool) -> None:
    with warm_run(pool, Limits(time_seconds=1)) as run:
        assert run.died("spin", seconds=5).ending is Ending.CPU_LIMIT


def test_the_memory_limit_makes_a_numpy_bomb_raise_memory_error(pool: ZygotePool) -> None:
    with warm_run(pool, Limits(memory_mb=256)) as run:
        assert run.reply("memory_bomb")["raised"]["type"] == "MemoryError"
        assert run.call("fork_once") == 7  # the run is still usable


def test_a_dead_zygote_is_replaced() -> None:
    single = ZygotePool(size=1)
    try:
        with warm_run(single) as run:
            zygote = run.process._zygote
        zygote.stop()
        with warm_run(single) as run:
            assert run.process._zygote is not zygote
            assert run.call("pids") == [1, 2]
    finally:
        single.close()


def test_eight_threads_can_run_at_once() -> None:
    eight = ZygotePool(size=8)
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
    original = WarmRunnerProcess.__init__

    def counting(self: WarmRunnerProcess, *args: Any, **kwargs: Any) -> None:
        started.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(WarmRunnerProcess, "__init__", counting)
    warm = grade(kv_exercise, source, warm=True)
    assert started, "the warm path was not used"
    assert warm.status is cold.status is Status.PASS
    assert [(t.name, t.status, t.points) for t in warm.tests] == [(t.name, t.status, t.points) for t in cold.tests]


# --------------------------------------------------------------------------- spare runs and pinning


@pytest.fixture
def spare_pool() -> Iterator[ZygotePool]:
    zygotes = ZygotePool(size=2, spares=1)
    yield zygotes
    zygotes.close()


def test_a_spare_run_is_started_ahead_and_is_pristine_when_a_submission_takes_it(spare_pool: ZygotePool) -> None:
    limits = Limits()
    assert spare_pool.spares.take(limits) is None  # none yet: this asks for one
    assert spare_pool.spares.settle()
    waiting = spare_pool.spares.process_ids()
    assert len(waiting) == 3, "a launcher, an init and a runner wait for the next submission"
    spare = spare_pool.spares.take(limits)
    assert spare is not None and spare.process_ids() <= waiting
    run = Run(spare)
    try:
        assert run.call("pids") == [1, 2]
        assert run.call("traces") == {"tmp": [], "shm": [], "numpy": False, "os": False, "solution": False}
    finally:
        spare.close()
    assert spare_pool.spares.settle()
    assert spare_pool.spares.process_ids().isdisjoint(waiting), "the next spare is a new run"


def test_a_spare_that_died_while_waiting_is_never_handed_out(spare_pool: ZygotePool) -> None:
    limits = Limits(time_seconds=5)
    spare_pool.spares.take(limits)
    assert spare_pool.spares.settle()
    ready = spare_pool.spares.take(limits)
    assert ready is not None
    ready.close()  # the successor it asked for is the one to break
    assert spare_pool.spares.settle()
    successor = spare_pool.spares.process_ids()
    assert successor
    (broken,) = spare_pool.spares._runs()
    for pid in successor:
        os.kill(pid, 9)
    deadline = time.monotonic() + 5
    while broken.unused_and_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert spare_pool.spares.take(limits) is None


def test_spares_are_only_started_on_idle_zygotes(pool: ZygotePool) -> None:
    busy = ZygotePool(size=1, spares=1)
    try:
        with warm_run(busy):
            assert busy.spares.take(Limits()) is None
            assert busy.spares.settle()
            assert busy.spares.process_ids() == set(), "the only zygote is in use: no spare"
    finally:
        busy.close()


def test_a_taken_run_shares_one_cpu_with_the_thread_that_grades_it(pool: ZygotePool) -> None:
    before = os.sched_getaffinity(0)
    process = WarmRunnerProcess(Limits(), pool=pool)
    try:
        process.attach()
        (cpu,) = os.sched_getaffinity(0)
        assert all(os.sched_getaffinity(pid) == {cpu} for pid in (process.pid, process._runner_pid))
        assert Run(process).call("pids") == [1, 2]
    finally:
        process.close()
    assert os.sched_getaffinity(0) == before


def test_a_spare_for_other_limits_makes_way_so_spares_never_hold_more_zygotes_than_allowed() -> None:
    two = ZygotePool(size=2, spares=1)
    try:
        first, second = Limits(time_seconds=5), Limits(time_seconds=6)
        two.spares.take(first)
        assert two.spares.settle()
        (old,) = two.spares._runs()
        assert old.limits == first
        two.spares.take(second)  # an exercise with other limits: its spare replaces the first's
        assert two.spares.settle()
        (new,) = two.spares._runs()
        assert new.limits == second and new is not old
        taken = two.spares.take(second)
        assert taken is new
        taken.close()
        with warm_run(two):  # both zygotes usable at once: the spares held no more than one
            pass
    finally:
        two.close()


def test_a_spare_never_takes_a_zygote_a_submission_is_waiting_for() -> None:
    one = ZygotePool(size=1, spares=0)
    try:
        held = one.acquire()
        got: list[object] = []
        waiter = threading.Thread(target=lambda: got.append(one.acquire()))
        waiter.start()
        deadline = time.monotonic() + 5
        while not one._waiting and time.monotonic() < deadline:
            time.sleep(0.01)
        assert one._waiting == 1
        one.release(held, healthy=True)
        assert one.try_acquire() is None or got, "the waiting submission comes first"
        waiter.join(5)
        assert got == [held]
        one.release(held, healthy=True)
    finally:
        one.close()
