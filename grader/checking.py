"""What the check running in this thread is: public or hidden, and the calls it made so far.

Set by the grading loop around each check (:func:`checking`), read by the ``expect_*`` helpers:
a hidden check's messages say what kind of difference there is, never the values (its inputs
and expected values must stay hidden); a public check's messages show them, beside the call
they came from.
"""

from __future__ import annotations

from contextvars import ContextVar, Token
from dataclasses import dataclass
from typing import Any

import numpy as np

from grader.proxy import Call, CallLog


@dataclass(frozen=True)
class _Running:
    public: bool
    log: CallLog | None


# Outside any grading (an author's own test of a helper), messages show everything.
_OUTSIDE = _Running(public=True, log=None)
_RUNNING: ContextVar[_Running | None] = ContextVar("mlkata_running_check", default=None)


def _running() -> _Running:
    return _RUNNING.get() or _OUTSIDE


class checking:  # noqa: N801  (used as a ``with`` statement, like contextlib's)
    """Run a check's code as a public or hidden check whose calls are logged in ``log``.

    A class, not a generator: an exception leaving the check passes through untouched (the
    solution's exceptions are frozen, and a generator's ``throw`` would add to their traceback).
    """

    def __init__(self, *, public: bool, log: CallLog) -> None:
        self._running = _Running(public, log)
        self._token: Token[_Running | None] | None = None

    def __enter__(self) -> None:
        self._token = _RUNNING.set(self._running)

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _RUNNING.reset(self._token)


def values_shown() -> bool:
    """Whether messages may show values: true in public checks, false in hidden ones."""
    return _running().public


def call_of(got: Any) -> Call | None:
    """The call whose answer ``got`` is (or is a part of), when exactly one is."""
    log = _running().log
    return None if log is None else log.call_of(got)


def input_sizes(got: Any) -> tuple[int, ...]:
    """The sizes in the inputs of the call that gave ``got``: dimensions of its arrays, its int arguments.

    A symptom can then name a factor after a size (√d with d the head size).
    """
    call = call_of(got)
    if call is None:
        return ()
    sizes: set[int] = set()
    _collect_sizes(call.args, sizes, depth=3)
    return tuple(sorted(size for size in sizes if 1 < size <= 1 << 20))


def _collect_sizes(value: Any, sizes: set[int], depth: int) -> None:
    if isinstance(value, np.ndarray):
        sizes.update(int(n) for n in value.shape)
    elif isinstance(value, int) and not isinstance(value, bool):
        sizes.add(value)
    elif depth and isinstance(value, (list, tuple)):
        for item in value[:32]:
            _collect_sizes(item, sizes, depth - 1)
    elif depth and isinstance(value, dict):
        for item in list(value.values())[:32]:
            _collect_sizes(item, sizes, depth - 1)
