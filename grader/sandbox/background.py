"""One daemon thread doing submitted work in order, for tidying up after runs off the grading path."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class Background:
    """Work done in order on a thread of its own; :meth:`settle` waits until it is idle."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._work: list[Callable[[], None]] = []
        self._busy = False
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def submit(self, work: Callable[[], None]) -> None:
        with self._changed:
            self._work.append(work)
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name=self._name, daemon=True)
                self._thread.start()
            self._changed.notify_all()

    def settle(self, timeout: float) -> bool:
        with self._changed:
            return self._changed.wait_for(lambda: not (self._work or self._busy), timeout)

    def _loop(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._work))
                work = self._work.pop(0)
                self._busy = True
            try:
                work()
            except Exception:
                log.exception("background work failed (%s)", self._name)
            finally:
                with self._changed:
                    self._busy = False
                    self._changed.notify_all()
