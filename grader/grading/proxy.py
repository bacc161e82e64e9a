"""What a check holds instead of the student's module: calls cross into the sandbox and back.

``student.attend_step(x, cache, p)`` encodes the arguments, runs the call in the sandboxed runner
and returns the decoded result, or raises :class:`~grader.grading.session.SolutionRaised` when the
student's code raised. Only the functions the exercise declares can be called. Every call and
what it gave is logged: public checks show their inputs, and a wrong answer is compared with the
exercise's known mistakes on the same calls (:mod:`grader.grading.mistakes.fingerprints`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from grader.grading.session import SolutionRaised, SolutionSession
from runner import protocol


@dataclass
class Call:
    """One call a check made: its arguments, and what the solution gave back (or the exception's type)."""

    function: str
    args: tuple[Any, ...]
    #: Calls made in one crossing share a batch number (their arguments are one set of objects).
    batch: int
    value: Any = None
    raised: str | None = None
    #: The exception's message, when it raised (the solution's own text: never shown for hidden checks).
    raised_message: str = ""
    #: For a chain: the argument replaced by a part of the previous call's value, as (argument, part).
    fed: tuple[int, int] | None = None


@dataclass
class CallLog:
    """The calls a check made, in order."""

    calls: list[Call] = field(default_factory=list)
    batches: int = 0

    def last(self) -> tuple[str, tuple[Any, ...]] | None:
        return (self.calls[-1].function, self.calls[-1].args) if self.calls else None

    def call_of(self, value: Any) -> Call | None:
        """The one call whose answer is ``value`` or holds it (by identity), or None when none or several do.

        A check compares the parts of answers it received, so the object it compares tells which call
        it is about. Objects that many answers share (small ints, None, True) may point at several
        calls: then no call is named rather than a wrong one.
        """
        if value is None or isinstance(value, bool):
            return None
        found: Call | None = None
        budget = [_HOLDS_BUDGET]
        for call in self.calls:
            if call.raised is None and _holds(call.value, value, budget):
                if found is not None:
                    return None
                found = call
        return found

    def start_batch(self, function: str, calls: list[list[Any]], fed: tuple[int, int] | None = None) -> list[Call]:
        self.batches += 1
        logged = [Call(function, tuple(args), self.batches, fed=fed if n else None) for n, args in enumerate(calls)]
        self.calls += logged
        return logged


#: Wraps each crossing of the boundary (the grader's CPU budget is checked around it).
Crossing = Callable[[], AbstractContextManager[None]]


class CallRefused(Exception):
    """A call of a function that ran out of time earlier in the run: refused before it crosses."""

    def __init__(self, function: str, timed_out_in: str) -> None:
        super().__init__(f"{function}() timed out in {timed_out_in!r}")
        self.function, self.timed_out_in = function, timed_out_in


class StudentFunction:
    """One of the student's functions, callable from a check."""

    def __init__(
        self,
        name: str,
        session: Callable[[], SolutionSession],
        log: CallLog,
        crossing: Crossing,
        refused_since: str | None = None,
    ) -> None:
        self._name = name
        self._session = session
        self._log = log
        self._crossing = crossing
        self._refused_since = refused_since

    def _refuse(self) -> None:
        if self._refused_since is not None:
            raise CallRefused(self._name, self._refused_since)

    def __call__(self, *args: Any) -> Any:
        self._refuse()
        (call,) = self._log.start_batch(self._name, [list(args)])
        try:
            with self._crossing():
                call.value = self._session().call(self._name, list(args)).value
        except SolutionRaised as exc:
            call.raised, call.raised_message = exc.type, exc.message
            raise
        return call.value

    def each(self, calls: Iterable[Sequence[Any]]) -> list[Any]:
        """Make calls, in order, in one crossing of the boundary; return every result.

        Much cheaper than calling one by one when a check needs hundreds of calls. If a call
        raises, :class:`~grader.grading.session.SolutionRaised` is raised for it, as with a single call.
        An object passed to several calls stays one object, so passing the same arguments twice
        and comparing the answers shows whether the first call changed them.
        """
        self._refuse()
        args_list = [list(args) for args in calls]
        logged = self._log.start_batch(self._name, args_list)
        return self._crossed(logged, lambda: self._session().call_each(self._name, args_list))

    def chain(self, calls: Iterable[Sequence[Any]], *, feed: tuple[int, int]) -> list[Any]:
        """Calls in one crossing, each after the first taking part of the previous one's result.

        ``feed=(argument, part)``: argument ``argument`` of every call but the first is replaced by
        ``result[part]`` of the call before it (what is written there in ``calls`` is not sent). The
        decode loop of a sequence is one chain: ``feed=(1, 1)`` passes each returned cache on.
        """
        self._refuse()
        args_list = [list(args) for args in calls]
        argument, part = feed
        for args in args_list[1:]:
            args[argument] = None  # filled in the sandbox from the previous result
        logged = self._log.start_batch(self._name, args_list, fed=feed)
        values = self._crossed(logged, lambda: self._session().call_chain(self._name, args_list, argument, part))
        for previous, call in zip(values, logged[1:], strict=False):
            # What was fed is the previous answer's part, as the check received it.
            call.args = (*call.args[:argument], protocol.fed_part(previous, part), *call.args[argument + 1 :])
        return values

    def _crossed(self, logged: list[Call], cross: Callable[[], list[Any]]) -> list[Any]:
        try:
            with self._crossing():
                values = cross()
        except SolutionRaised as exc:
            if exc.call_index is not None:
                for call, value in zip(logged, exc.earlier_values, strict=False):
                    call.value = value
                logged[exc.call_index].raised = exc.type
                logged[exc.call_index].raised_message = exc.message
                # The log's last call is the one that raised, so messages and details name it.
                del self._log.calls[len(self._log.calls) - len(logged) + exc.call_index + 1 :]
            raise
        for call, value in zip(logged, values, strict=True):
            call.value = value
        return values


#: How much of the answers :meth:`CallLog.call_of` looks at, in all: answers are tuples of arrays and dicts.
_HOLDS_DEPTH, _HOLDS_BUDGET = 4, 20_000


def _holds(answer: Any, value: Any, budget: list[int], depth: int = _HOLDS_DEPTH) -> bool:
    """Whether ``value`` is ``answer`` or one of its parts, a few levels deep (``budget``: parts left to look at)."""
    budget[0] -= 1
    if answer is value:
        return True
    if depth == 0 or budget[0] <= 0:
        return False
    kind = type(answer)
    if kind is tuple or kind is list:
        items: Iterable[Any] = answer
    elif kind is dict:
        items = answer.values()
    else:
        return False
    return any(_holds(item, value, budget, depth - 1) for item in items)


class Student:
    """The student's solution as seen by a check: ``student.<function>(...)``."""

    def __init__(
        self,
        functions: list[str],
        session: Callable[[], SolutionSession],
        crossing: Crossing = nullcontext,
        *,
        refused: dict[str, str] | None = None,
    ) -> None:
        """``refused`` maps a function to the check it ran out of time in: its calls are refused."""
        self.log = CallLog()
        refused = refused or {}
        self._functions = {
            name: StudentFunction(name, session, self.log, crossing, refused.get(name)) for name in functions
        }

    def __getattr__(self, name: str) -> StudentFunction:
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError(f"the exercise declares no function {name!r}") from None
