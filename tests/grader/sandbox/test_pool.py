"""The zygote pool's lending and locking, with stand-in zygotes: no root, no bubblewrap needed."""

from __future__ import annotations

import threading
import time

import pytest

from grader.sandbox.endings import SandboxUnavailable
from grader.sandbox.pool import ZygotePool


class FakeZygote:
    """Counts what the pool does with it."""

    made = 0

    def __init__(self) -> None:
        FakeZygote.made += 1
        self.number = FakeZygote.made
        self.living = True
        self.stopped = False

    def alive(self) -> bool:
        return self.living

    def stop(self) -> None:
        self.living = False
        self.stopped = True


def _pool(size: int) -> ZygotePool[FakeZygote]:
    return ZygotePool(FakeZygote, size=size, spares=0)


def _wait_until(condition: object, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.005)


def test_a_released_zygote_is_lent_again_instead_of_a_new_one() -> None:
    pool = _pool(2)
    first = pool.acquire()
    pool.release(first, healthy=True)
    assert pool.acquire() is first


def test_no_more_zygotes_than_the_size_exist_and_try_acquire_does_not_wait() -> None:
    pool = _pool(2)
    held = [pool.acquire(), pool.acquire()]
    assert pool.try_acquire() is None
    pool.release(held[0], healthy=True)
    assert pool.try_acquire() is held[0]


def test_a_dead_or_unhealthy_zygote_is_stopped_and_replaced() -> None:
    pool = _pool(1)
    zygote = pool.acquire()
    pool.release(zygote, healthy=False)
    assert zygote.stopped
    replacement = pool.acquire()
    assert replacement is not zygote
    pool.release(replacement, healthy=True)
    replacement.living = False  # died while idle
    again = pool.acquire()
    assert again is not replacement and replacement.stopped


def test_a_waiting_submission_gets_the_next_zygote_before_anyone_who_does_not_wait() -> None:
    pool = _pool(1)
    held = pool.acquire()
    got: list[FakeZygote] = []
    waiter = threading.Thread(target=lambda: got.append(pool.acquire()))
    waiter.start()
    _wait_until(lambda: pool._waiting == 1)
    assert pool.try_acquire() is None, "a spare may not start while a submission waits"
    pool.release(held, healthy=True)
    waiter.join(5)
    assert got == [held]


def test_a_zygote_that_fails_to_start_gives_its_place_back() -> None:
    attempts: list[int] = []

    def failing() -> FakeZygote:
        attempts.append(1)
        if len(attempts) == 1:
            raise SandboxUnavailable("the zygote did not start")
        return FakeZygote()

    pool: ZygotePool[FakeZygote] = ZygotePool(failing, size=1, spares=0)
    with pytest.raises(SandboxUnavailable):
        pool.acquire()
    assert isinstance(pool.acquire(), FakeZygote)  # the place it held is free again


def test_closing_stops_idle_zygotes_and_refuses_new_loans() -> None:
    pool = _pool(2)
    idle, lent = pool.acquire(), pool.acquire()
    pool.release(idle, healthy=True)
    pool.close()
    assert idle.stopped and not lent.stopped
    pool.release(lent, healthy=True)  # a run that ends after the close: its zygote is stopped too
    assert lent.stopped
    with pytest.raises(SandboxUnavailable, match="closed"):
        pool.acquire()
    assert pool.try_acquire() is None


def test_tidying_up_runs_in_the_background_and_settle_waits_for_it() -> None:
    pool = _pool(1)
    done = threading.Event()
    pool.tidy_up(lambda: (time.sleep(0.05), done.set()))
    assert pool.settle(5)
    assert done.is_set()
