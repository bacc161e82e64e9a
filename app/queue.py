"""The grading queue: submission ids waiting for a worker, and the pool of workers taking them.

The database row is the source of truth; a queue carries only ids, so another implementation
(Redis Streams, for workers in other processes) can replace :class:`InProcessQueue`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger(__name__)


class QueueFull(Exception):
    """The queue holds as many submissions as it may."""


class SubmissionQueue(Protocol):
    """What the web app and the workers need from a queue."""

    def enqueue(self, submission_id: str, *, force: bool = False) -> int:
        """Add an id; return its 1-based position. Raise :class:`QueueFull` unless ``force``."""
        ...

    def take(self, timeout: float) -> str | None:
        """The next id, or None after ``timeout`` seconds or once the queue is closed."""
        ...

    def position(self, submission_id: str) -> int | None:
        """1-based position of a waiting id; None when it is not waiting."""
        ...

    def waiting(self) -> list[str]:
        """The waiting ids, first first."""
        ...

    def ack(self, submission_id: str) -> None:
        """The id taken last has been dealt with (its result is recorded, or it was not ours to grade)."""
        ...

    def close(self) -> None: ...


class InProcessQueue:
    """A bounded FIFO shared by the threads of one process."""

    def __init__(self, max_size: int) -> None:
        self.max_size = max_size
        self._items: deque[str] = deque()
        self._condition = threading.Condition()
        self._closed = False

    def enqueue(self, submission_id: str, *, force: bool = False) -> int:
        with self._condition:
            if not force and len(self._items) >= self.max_size:
                raise QueueFull(f"{len(self._items)} submissions are waiting")
            self._items.append(submission_id)
            self._condition.notify()
            return len(self._items)

    def take(self, timeout: float) -> str | None:
        with self._condition:
            if not self._condition.wait_for(lambda: self._items or self._closed, timeout=timeout):
                return None
            if self._closed:
                return None
            return self._items.popleft()

    def position(self, submission_id: str) -> int | None:
        with self._condition:
            try:
                return self._items.index(submission_id) + 1
            except ValueError:
                return None

    def waiting(self) -> list[str]:
        with self._condition:
            return list(self._items)

    def ack(self, submission_id: str) -> None:
        """Nothing to do: an id taken from memory is gone already; a restart recovers from the database."""

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
            submission_id = self.queue.take(timeout=0.5)
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
