"""The grading queue: submission ids waiting for a worker, and the pool of workers taking them.

The database row is the source of truth; a queue carries only ids, so another implementation
(Redis Streams, for workers in other processes) can replace :class:`InProcessQueue`. Either hands
its ids out in the fair order of :mod:`app.queue.fairness` (round-robin by learner), not as they came.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Protocol

from app.queue.fairness import WaitingRuns

log = logging.getLogger(__name__)

#: How long an id handed to a worker counts as its learner's latest turn without the run having started:
#: a worker claims it at once, unless it fails first.
_HANDED_SECONDS = 30.0


class QueueFull(Exception):
    """The queue holds as many submissions as it may."""


class SubmissionQueue(Protocol):
    """What the web app and the workers need from a queue."""

    def enqueue(self, submission_id: str, *, force: bool = False) -> None:
        """Add an id (recorded as queued already). Raise :class:`QueueFull` unless ``force``."""
        ...

    def take(self, timeout: float) -> str | None:
        """The id whose turn it is, or None after ``timeout`` seconds or once the queue is closed."""
        ...

    def scope(self) -> set[str] | None:
        """The ids this queue hands out; None when it hands out every waiting run in the database."""
        ...

    def position(self, submission_id: str) -> int | None:
        """1-based place of a waiting id in the order it will be taken; None when it is not waiting."""
        ...

    def waiting(self) -> list[str]:
        """The waiting ids, in the order they will be taken."""
        ...

    def ack(self, submission_id: str) -> None:
        """The id taken last has been dealt with (its result is recorded, or it was not ours to grade)."""
        ...

    def close(self) -> None: ...


class InProcessQueue:
    """A bounded queue shared by the threads of one process, handing out its ids in fair order.

    Without ``runs`` (to order by) it is first in, first out.
    """

    def __init__(self, max_size: int, runs: WaitingRuns | None = None) -> None:
        self.max_size = max_size
        self.runs = runs
        self._items: dict[str, None] = {}  # insertion-ordered set
        # Handed out, maybe not started yet (when): their learners just had a turn. Kept until acknowledged,
        # or for a while if a worker fails before it can be.
        self._handed: dict[str, float] = {}
        self._condition = threading.Condition()
        self._closed = False

    def enqueue(self, submission_id: str, *, force: bool = False) -> None:
        with self._condition:
            if not force and len(self._items) >= self.max_size:
                raise QueueFull(f"{len(self._items)} submissions are waiting")
            self._items[submission_id] = None
            self._condition.notify()

    def take(self, timeout: float) -> str | None:
        deadline = time.monotonic() + timeout
        while True:
            with self._condition:
                if not self._condition.wait_for(lambda: self._items or self._closed, timeout=timeout):
                    return None
                if self._closed:
                    return None
                ids = list(self._items)
            ordered = self._order(ids)  # outside the lock: a database read must not hold up enqueue
            with self._condition:
                for stale in set(ids) - set(ordered):  # no longer waiting (stopped, or graded elsewhere)
                    self._items.pop(stale, None)
                # Taken by another thread meanwhile: read the order again, which now counts that turn.
                if ordered and ordered[0] in self._items:
                    del self._items[ordered[0]]
                    self._handed[ordered[0]] = time.monotonic()
                    return ordered[0]
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                return None

    def scope(self) -> set[str] | None:
        with self._condition:
            return set(self._items)

    def position(self, submission_id: str) -> int | None:
        order = self.waiting()
        return order.index(submission_id) + 1 if submission_id in order else None

    def waiting(self) -> list[str]:
        with self._condition:
            ids = list(self._items)
        return self._order(ids)

    def _order(self, ids: list[str]) -> list[str]:
        if self.runs is None or not ids:
            return ids
        with self._condition:
            now = time.monotonic()
            for submission_id, when in list(self._handed.items()):
                if now - when > _HANDED_SECONDS:
                    del self._handed[submission_id]
            handed = list(self._handed)
        try:
            return [run.id for run in self.runs.in_order(ids, taken=handed)]
        except Exception:  # a correct run must still be graded when the order cannot be read: oldest first
            log.exception("reading the fair order failed")
            return ids

    def ack(self, submission_id: str) -> None:
        """Its run has started (and ended): the database says when its learner last had a turn.

        An id taken from memory is gone already; a restart recovers from the database.
        """
        with self._condition:
            self._handed.pop(submission_id, None)

    def __len__(self) -> int:
        with self._condition:
            return len(self._items)

    def close(self) -> None:
        with self._condition:
            self._closed = True
            self._condition.notify_all()


class WorkerPool:
    """N threads, each taking ids from the queue and handing them to ``handle`` (which grades)."""

    def __init__(
        self,
        queue: SubmissionQueue,
        handle: Callable[[str], None],
        size: int,
        on_taken: Callable[[], None] | None = None,
    ) -> None:
        self.queue, self.handle, self.size = queue, handle, size
        self.on_taken = on_taken or (lambda: None)
        self._threads: list[threading.Thread] = []
        self._stopping = threading.Event()

    def start(self) -> None:
        for index in range(self.size):
            thread = threading.Thread(target=self._work, name=f"mlkata-grader-{index + 1}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def stop(self, timeout: float = 15.0) -> bool:
        """Stop taking work; wait for the runs in progress (at most ``timeout`` seconds in all).

        Return whether every thread finished in time.
        """
        self._stopping.set()
        self.queue.close()
        deadline = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(timeout=max(0.0, deadline - time.monotonic()))
        finished = not any(thread.is_alive() for thread in self._threads)
        self._threads.clear()
        return finished

    def _work(self) -> None:
        while not self._stopping.is_set():
            try:
                submission_id = self.queue.take(timeout=0.5)
            except Exception:  # the database or Redis failed while choosing: try again in a moment
                log.exception("taking from the queue failed")
                self._stopping.wait(1.0)
                continue
            if submission_id is None:
                continue
            try:
                self.on_taken()
            except Exception:
                log.exception("reporting queue positions failed")
            try:
                self.handle(submission_id)
            except Exception:  # the handler records its own failures; this keeps the worker alive regardless
                # Not acknowledged: the queue hands it out again once its lease runs out.
                log.exception("grading submission %s failed", submission_id, extra={"submission_id": submission_id})
                continue
            try:
                self.queue.ack(submission_id)
            except Exception:
                log.exception("acknowledging submission %s failed", submission_id)
