"""The grader's own CPU time for one run: what its checks compute, and reading the solution's answers.

The sandbox bounds the solution; this bounds the trusted side. A check that spends more than the
run's budget (``checks_cpu_seconds``) is stopped: cooperatively at every crossing of the sandbox
boundary, and by a watchdog that raises :class:`BudgetExceeded` in the grading thread when it is
busy in a check's own Python code. The watchdog never interrupts a crossing (the grader's own
bookkeeping with the sandbox); the crossing checks the budget itself when it returns.
"""

from __future__ import annotations

import ctypes
import threading
import time

_POLL_SECONDS = 0.05


class BudgetExceeded(BaseException):
    """The run's grader CPU time is spent. Not an ``Exception``: a check's ``except`` must not swallow it."""


class CheckBudget:
    """CPU time of the calling thread from now on, against ``seconds``; used by one grading thread.

    ``raises``: what a spent budget raises (a ``BaseException``, so that the code interrupted cannot
    swallow it); the diagnosis's allowance raises its own.
    """

    def __init__(self, seconds: float, raises: type[BaseException] = BudgetExceeded) -> None:
        self.seconds = seconds
        self.raises = raises
        self._thread = threading.get_ident()
        self._clock = time.pthread_getcpuclockid(self._thread)
        self._start = time.clock_gettime(self._clock)
        self._lock = threading.Lock()
        self._watched = False
        self._crossing = False
        self._fired = False

    def used(self) -> float:
        return time.clock_gettime(self._clock) - self._start

    def check(self) -> None:
        if self.used() > self.seconds:
            with self._lock:
                self._fired = True  # the watchdog has nothing left to do
            raise self.raises

    def watching(self) -> _Watching:
        """While inside, the watchdog may interrupt this thread's Python code when the budget is spent."""
        return _Watching(self)

    def crossing(self) -> _Crossing:
        """A call into the sandbox: never interrupted; the budget is checked once it returns."""
        return _Crossing(self)

    def _interrupt_if_spent(self) -> None:
        with self._lock:
            if self._watched and not self._crossing and not self._fired and self.used() > self.seconds:
                self._fired = True
                _raise_in(self._thread, self.raises)


# Context managers as classes, not @contextmanager: that one sets ``__traceback__`` on the exception
# passing through, which frozen dataclass exceptions (the sandbox's) refuse.


class _Watching:
    def __init__(self, budget: CheckBudget) -> None:
        self._budget = budget

    def __enter__(self) -> None:
        budget = self._budget
        with budget._lock:
            budget._watched = True
        _watchdog.add(budget)

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        budget = self._budget
        _watchdog.discard(budget)
        with budget._lock:
            budget._watched = False
            if budget._fired:
                _clear_pending(budget._thread)  # set but maybe not raised yet: never outside this block
        if budget._fired and kind is not budget.raises:
            raise budget.raises
        if kind is None:
            budget.check()


class _Crossing:
    def __init__(self, budget: CheckBudget) -> None:
        self._budget = budget

    def __enter__(self) -> None:
        budget = self._budget
        with budget._lock:
            if budget._fired:
                _clear_pending(budget._thread)
                raise budget.raises
            budget._crossing = True

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        budget = self._budget
        with budget._lock:
            budget._crossing = False
        if kind is None:
            budget.check()


class _Watchdog:
    """One thread for the process, polling the CPU clocks of the watched grading threads."""

    def __init__(self) -> None:
        self._budgets: set[CheckBudget] = set()
        self._changed = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, budget: CheckBudget) -> None:
        with self._changed:
            self._budgets.add(budget)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="mlkata-check-budget", daemon=True)
                self._thread.start()
            self._changed.notify()

    def discard(self, budget: CheckBudget) -> None:
        with self._changed:
            self._budgets.discard(budget)

    def _run(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._budgets))
                budgets = list(self._budgets)
            for budget in budgets:
                budget._interrupt_if_spent()
            time.sleep(_POLL_SECONDS)


_watchdog = _Watchdog()
# CPython's way to raise an exception in another thread (checked between bytecodes); the same
# function with NULL clears an exception set but not yet raised.
_SET_ASYNC_EXC = ("PyThreadState_SetAsyncExc", ctypes.pythonapi)
_set_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.py_object)(_SET_ASYNC_EXC)
_clear_async_exc = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(_SET_ASYNC_EXC)


def _raise_in(thread: int, exception: type[BaseException]) -> None:
    _set_async_exc(thread, exception)


def _clear_pending(thread: int) -> None:
    _clear_async_exc(thread, None)
