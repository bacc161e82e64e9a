"""What a check holds instead of the student's module: calls cross into the sandbox and back.

``student.attend_step(x, cache, p)`` encodes the arguments, runs the call in the sandboxed runner
and returns the decoded result, or raises :class:`~grader.session.SolutionRaised` when the
student's code raised. Only the functions the exercise declares can be called.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Any

from grader.session import SolutionRaised, SolutionSession


@dataclass
class CallLog:
    """The calls a check made, kept so public checks can show their inputs."""

    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    def last(self) -> tuple[str, tuple[Any, ...]] | None:
        return self.calls[-1] if self.calls else None


#: Wraps each crossing of the boundary (the grader's CPU budget is checked around it).
Crossing = Callable[[], AbstractContextManager[None]]


class StudentFunction:
    """One of the student's functions, callable from a check."""

    def __init__(self, name: str, session: Callable[[], SolutionSession], log: CallLog, crossing: Crossing) -> None:
        self._name = name
        self._session = session
        self._log = log
        self._crossing = crossing

    def __call__(self, *args: Any) -> Any:
        self._log.calls.append((self._name, args))
        with self._crossing():
            return self._session().call(self._name, list(args)).value

    def each(self, calls: Iterable[Sequence[Any]]) -> list[Any]:
        """Make calls, in order, in one crossing of the boundary; return every result.

        Much cheaper than calling one by one when a check needs hundreds of calls. If a call
        raises, :class:`~grader.session.SolutionRaised` is raised for it, as with a single call.
        An object passed to several calls stays one object, so passing the same arguments twice
        and comparing the answers shows whether the first call changed them.
        """
        args_list = [list(args) for args in calls]
        self._log.calls.extend((self._name, tuple(args)) for args in args_list)
        try:
            with self._crossing():
                return self._session().call_each(self._name, args_list)
        except SolutionRaised as exc:
            if exc.call_index is not None:
                # The log's last call is the one that raised, so messages and details name it.
                del self._log.calls[len(self._log.calls) - len(args_list) + exc.call_index + 1 :]
            raise


class Student:
    """The student's solution as seen by a check: ``student.<function>(...)``."""

    def __init__(
        self, functions: list[str], session: Callable[[], SolutionSession], crossing: Crossing = nullcontext
    ) -> None:
        self.log = CallLog()
        self._functions = {name: StudentFunction(name, session, self.log, crossing) for name in functions}

    def __getattr__(self, name: str) -> StudentFunction:
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError(f"the exercise declares no function {name!r}") from None
