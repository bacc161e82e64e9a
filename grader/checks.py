"""The check-authoring API: how an exercise's ``checks.py`` declares its checks.

A check is a plain function in the trusted process. It receives the student's solution as a
:class:`~grader.proxy.Student` proxy, calls it like ordinary code and fails with
:func:`fail` (or one of the helpers in :mod:`grader.expect`)::

    @check("The worked example from the statement", public=True)
    def worked_example(student: Student) -> None:
        out, cache = student.attend_step(x, empty_cache, params)
        expect_array(out, [1.0, 0.0], what="out")

Checks run in the order they are defined. They are collected from the module by the marker the
decorator leaves on each function, so importing ``checks.py`` registers nothing globally.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

if TYPE_CHECKING:
    from grader.proxy import Student

CheckFunction = Callable[["Student"], None]
F = TypeVar("F", bound=CheckFunction)
_MARKER = "__mlkata_check__"


@dataclass(frozen=True)
class Check:
    """A check as collected from ``checks.py``."""

    id: str
    title: str
    public: bool
    points: float
    hint: str | None
    function: CheckFunction


class CheckFailed(AssertionError):
    """Raised inside a check when the solution's behaviour is wrong."""

    def __init__(self, message: str, *, hint: str | None = None, expected: Any = None, got: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.expected = expected
        self.got = got


def check(title: str, *, public: bool = False, points: float = 1, hint: str | None = None) -> Callable[[F], F]:
    """Mark a function as a check.

    ``hint`` names an entry of the exercise's ``[hints]`` table, shown when the check fails and
    no more specific hint was given to :func:`fail`.
    """

    def mark(function: F) -> F:
        setattr(function, _MARKER, (title, public, points, hint))
        return function

    return mark


def fail(message: str, *, hint: str | None = None, expected: Any = None, got: Any = None) -> NoReturn:
    """Fail the running check with a message for the student (and optionally a hint id)."""
    raise CheckFailed(message, hint=hint, expected=expected, got=got)


def collect_checks(module: types.ModuleType) -> list[Check]:
    """The checks defined in ``module``, in definition order."""
    found: list[Check] = []
    for name, value in vars(module).items():
        marker = getattr(value, _MARKER, None)
        if marker is None or not callable(value):
            continue
        title, public, points, hint = marker
        found.append(Check(id=name, title=title, public=public, points=points, hint=hint, function=value))
    return found
