"""Spare runs, started ahead on real zygotes: pristine when taken, never more than allowed."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator

import pytest

from grader.sandbox import Limits
from grader.sandbox.pool import ZygotePool
from grader.sandbox.runs import new_pool
from grader.sandbox.warm import WarmRun
from grader.sandbox.zygote import Zygote
from tests.grader.sandbox.warm_support import Probed, warm_run


@pytest.fixture
def spare_pool() -> Iterator[ZygotePool[Zygote]]:
    zygotes = new_pool(size=2, spares=1)
    yield zygotes
    zygotes.close()


def test_a_spare_run_is_started_ahead_and_is_pristine_when_a_submission_takes_it(
    spare_pool: ZygotePool[Zygote],
) -> None:
    limits = Limits()
    assert spare_pool.spares.take(limits) is None  # none yet: this asks for one
    assert spare_pool.spares.settle()
    waiting = spare_pool.spares.process_ids()
    assert len(waiting) == 3, "a launcher, an init and a runner wait for the next submission"
    spare = spare_pool.spares.take(limits)
    assert spare is not None and spare.process_ids() <= waiting
    run = Probed(spare)
    try:
        assert run.call("pids") == [1, 2]
        assert run.call("traces") == {"tmp": [], "shm": [], "numpy": False, "os": False, "solution": False}
    finally:
        spare.close()
    assert spare_pool.spares.settle()
    assert spare_pool.spares.process_ids().isdisjoint(waiting), "the next spare is a new run"


def test_a_spare_that_died_while_waiting_is_never_handed_out(spare_pool: ZygotePool[Zygote]) -> None:
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
    deadline = time.monotonic() + 30
    while broken.pristine() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert spare_pool.spares.take(limits) is None


def test_spares_are_only_started_on_idle_zygotes(pool: ZygotePool[Zygote]) -> None:
    busy = new_pool(size=1, spares=1)
    try:
        with warm_run(busy):
            assert busy.spares.take(Limits()) is None
            assert busy.spares.settle()
            assert busy.spares.process_ids() == set(), "the only zygote is in use: no spare"
    finally:
        busy.close()


def test_a_taken_run_shares_one_cpu_with_the_thread_that_grades_it(pool: ZygotePool[Zygote]) -> None:
    before = os.sched_getaffinity(0)
    process = WarmRun(Limits(), pool=pool)
    try:
        process.attach()
        (cpu,) = os.sched_getaffinity(0)
        assert all(os.sched_getaffinity(pid) == {cpu} for pid in (process.pid, process.runner_pid))
        assert Probed(process).call("pids") == [1, 2]
    finally:
        process.close()
    assert os.sched_getaffinity(0) == before


def test_a_spare_for_other_limits_makes_way_so_spares_never_hold_more_zygotes_than_allowed() -> None:
    two = new_pool(size=2, spares=1)
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
    one = new_pool(size=1, spares=0)
    try:
        held = one.acquire()
        got: list[object] = []
        waiter = threading.Thread(target=lambda: got.append(one.acquire()))
        waiter.start()
        deadline = time.monotonic() + 30
        while not one._waiting and time.monotonic() < deadline:
            time.sleep(0.01)
        assert one._waiting == 1
        one.release(held, healthy=True)
        assert one.try_acquire() is None or got, "the waiting submission comes first"
        waiter.join(30)
        assert got == [held]
        one.release(held, healthy=True)
    finally:
        one.close()
