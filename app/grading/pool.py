"""The grading threads of one process, each taking ids from the queue and grading them."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from app.queue import SubmissionQueue

log = logging.getLogger(__name__)


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
