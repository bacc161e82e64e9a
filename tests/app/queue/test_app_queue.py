"""The in-process queue and worker pool."""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

from app.db import make_engine, make_sessionmaker, upgrade
from app.grading.pool import WorkerPool
from app.learners import ensure_learner
from app.models import Submission
from app.queue import InProcessQueue
from app.queue.fairness import WaitingRuns


def test_without_a_database_to_order_by_ids_go_first_in_first_out() -> None:
    queue = InProcessQueue()
    for i in ("a", "b", "c", "d"):
        queue.enqueue(i)
    assert queue.position("c") == 3 and queue.position("zz") is None and queue.depth() == 4
    assert queue.take(timeout=0) == "a"
    assert queue.waiting() == ["b", "c", "d"] and queue.position("c") == 2 and queue.scope() == {"b", "c", "d"}


def test_ids_are_handed_out_round_robin_by_learner_and_stale_ones_dropped(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'queue.db'}")
    upgrade(engine)
    sessions = make_sessionmaker(engine)
    ann, bob = str(uuid.uuid4()), str(uuid.uuid4())
    sent = [(ann, "a1"), (ann, "a2"), (ann, "a3"), (bob, "b1"), (ann, "stopped")]
    ids = {name: str(uuid.uuid4()) for _, name in sent}
    with sessions.begin() as session:
        for learner, name in sent:
            ensure_learner(session, learner)
            session.flush()
            status = "pass" if name == "stopped" else "queued"
            session.add(Submission(id=ids[name], learner_id=learner, exercise="adder", code="", status=status))
            session.flush()
    queue = InProcessQueue(runs=WaitingRuns(sessions))
    for _, name in sent:
        queue.enqueue(ids[name])
    assert queue.waiting() == [ids["a1"], ids["b1"], ids["a2"], ids["a3"]] and queue.position(ids["b1"]) == 2
    assert [queue.take(timeout=0) for _ in range(4)] == [ids["a1"], ids["b1"], ids["a2"], ids["a3"]]
    assert queue.take(timeout=0) is None and len(queue) == 0  # the finished one was dropped, not handed out
    engine.dispose()


def test_take_times_out_and_close_wakes_takers() -> None:
    queue = InProcessQueue()
    assert queue.take(timeout=0.01) is None
    got: list[str | None] = []
    taker = threading.Thread(target=lambda: got.append(queue.take(timeout=30)))
    taker.start()
    queue.close()
    taker.join(timeout=5)
    assert got == [None]


def test_pool_hands_every_id_to_the_handler_and_survives_handler_errors() -> None:
    queue = InProcessQueue()
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
