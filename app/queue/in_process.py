"""The grading queue of one process: its threads take the ids it holds, in fair order."""

from __future__ import annotations

import logging
import threading
import time

from app.queue.fairness import WaitingRuns

log = logging.getLogger(__name__)

#: How long an id handed to a worker counts as its learner's latest turn without the run having started:
#: a worker claims it at once, unless it fails first.
_HANDED_SECONDS = 30.0


class InProcessQueue:
    """A bounded queue shared by the threads of one process, handing out its ids in fair order.

    Without ``runs`` (to order by) it is first in, first out.
    """

    shared = False
    consumer = "this process"

    def __init__(self, runs: WaitingRuns | None = None) -> None:
        self.runs = runs
        self._items: dict[str, None] = {}  # insertion-ordered set
        # Handed out, maybe not started yet (when): their learners just had a turn. Kept until acknowledged,
        # or for a while if a worker fails before it can be.
        self._handed: dict[str, float] = {}
        self._condition = threading.Condition()
        self._closed = False

    def enqueue(self, submission_id: str) -> None:
        with self._condition:
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

    def depth(self) -> int:
        return len(self)

    def ping(self) -> None:
        """In this process: always reachable."""

    def forget_idle_consumers(self, idle_seconds: float) -> int:
        return 0  # its takers are this process's threads

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
