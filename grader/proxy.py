"""What a check holds instead of the student's module: calls cross into the sandbox and back.

``student.attend_step(x, cache, p)`` encodes the arguments, runs the call in the sandboxed runner
and returns the decoded result, or raises :class:`~grader.session.SolutionRaised` when the
student's code raised. Only the functions the exercise declares can be called.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grader.session import SolutionSession


@dataclass
class CallLog:
    """The calls a check made, kept so public checks can show their inputs."""

    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)

    def last(self) -> tuple[str, tuple[Any, ...]] | None:
        return self.calls[-1] if self.calls else None


class StudentFunction:
    """One of the student's functions, callable from a check."""

    def __init__(self, name: str, session: Callable[[], SolutionSession], log: CallLog) -> None:
        self._name = name
        self._session = session
        self._log = log

    def __call__(self, *args: Any) -> Any:
        self._log.calls.append((self._name, args))
        return self._session().call(self._name, list(args)).value

    def returning_args(self, *args: Any) -> tuple[Any, list[Any]]:
        """Call, and also return the arguments as the function left them (to detect mutation)."""
        self._log.calls.append((self._name, args))
        reply = self._session().call(self._name, list(args), return_args=True)
        return reply.value, reply.args_after or []


class Student:
    """The student's solution as seen by a check: ``student.<function>(...)``."""

    def __init__(self, functions: list[str], session: Callable[[], SolutionSession]) -> None:
        self.log = CallLog()
        self._functions = {name: StudentFunction(name, session, self.log) for name in functions}

    def __getattr__(self, name: str) -> StudentFunction:
        try:
            return self._functions[name]
        except KeyError:
            raise AttributeError(f"the exercise declares no function {name!r}") from None
