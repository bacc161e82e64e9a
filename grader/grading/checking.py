"""What the check running in this thread is: public or hidden, and the calls it made so far.

Set by the grading loop around each check (:func:`checking`), read by the ``expect_*`` helpers:
a hidden check's messages say what kind of difference there is, never the values (its inputs
and expected values must stay hidden); a public check's messages show them, beside the call
they came from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextvars import ContextVar, Token
from dataclasses import dataclass, field
from typing import Any

from grader.grading.proxy import Call, CallLog
from grader.grading.symptoms import sizes_of


@dataclass(frozen=True)
class _Running:
    public: bool
    log: CallLog | None
    #: Each function's parameter names, to name a factor after a parameter (never by its value).
    params: Mapping[str, Sequence[str]] = field(default_factory=dict)


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

    def __init__(self, *, public: bool, log: CallLog, params: Mapping[str, Sequence[str]] | None = None) -> None:
        self._running = _Running(public, log, params or {})
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


def input_sizes(got: Any) -> dict[str, float]:
    """The sizes of the call that gave ``got``, by parameter name or dimension, for naming a factor (÷ √d)."""
    running = _running()
    call = call_of(got)
    if call is None:
        return {}
    return sizes_of(call.args, running.params.get(call.function, ()))
