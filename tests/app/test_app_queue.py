"""The in-process queue and worker pool."""

from __future__ import annotations

import threading

import pytest

from app.queue import InProcessQueue, QueueFull, WorkerPool


def test_positions_follow_the_order_of_arrival() -> None:
    queue = InProcessQueue(max_size=3)
    assert [queue.enqueue(i) for i in ("a", "b", "c")] == [1, 2, 3]
    assert queue.position("c") == 3 and queue.position("zz") is None
    with pytest.raises(QueueFull):
        queue.enqueue("d")
    assert queue.enqueue("d", force=True) == 4
    assert queue.take(timeout=0) == "a"
    assert queue.waiting() == ["b", "c", "d"] and queue.position("c") == 2


def test_take_times_out_and_close_wakes_takers() -> None:
    queue = InProcessQueue(max_size=1)
    assert queue.take(timeout=0.01) is None
    got: list[str | None] = []
    taker = threading.Thread(target=lambda: got.append(queue.take(timeout=30)))
    taker.start()
    queue.close()
    taker.join(timeout=5)
    assert got == [None]


def test_pool_hands_every_id_to_the_handler_and_survives_handler_errors() -> None:
    queue = InProcessQueue(max_size=10)
    seen: list[str] = []
    done = threading.Event()

    def handle(item: str) -> None:
        seen.append(item)
        if item == "boom":
            raise RuntimeError("a bug in a handler")
        if len(seen) == 3:
            done.set()

    pool = WorkerPool(queue, handle, size=1)
    pool.start()
    for item in ("x", "boom", "y"):
        queue.enqueue(item)
    assert done.wait(timeout=10)
    pool.stop()
    assert seen == ["x", "boom", "y"]
