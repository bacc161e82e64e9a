"""The student's module as a check sees it: declared functions only, every call logged, crossings wrapped."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from grader.limits import Limits
from grader.proxy import Student
from grader.session import SolutionRaised, SolutionSession

SOLUTION = "def square(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x * x\n"


@pytest.fixture
def session() -> Iterator[SolutionSession]:
    opened = SolutionSession(Limits(), jailed=False, deadline=time.monotonic() + 30, warm=False)
    opened.load(SOLUTION, ["square"])
    yield opened
    opened.close()


def test_only_declared_functions_can_be_called(session: SolutionSession) -> None:
    student = Student(["square"], lambda: session)
    assert student.square(3) == 9
    with pytest.raises(AttributeError, match="declares no function 'cube'"):
        student.cube  # noqa: B018


def test_calls_are_logged_and_a_raising_batch_call_is_the_last_logged(session: SolutionSession) -> None:
    student = Student(["square"], lambda: session)
    assert student.square.each([(1,), (2,)]) == [1, 4]
    with pytest.raises(SolutionRaised):
        student.square.each([(3,), (-1,), (5,)])
    assert student.log.calls == [("square", (1,)), ("square", (2,)), ("square", (3,)), ("square", (-1,))]


def test_every_crossing_goes_through_the_crossing_hook(session: SolutionSession) -> None:
    crossings: list[str] = []

    @contextmanager
    def crossing() -> Iterator[None]:
        crossings.append("in")
        yield
        crossings.append("out")

    student = Student(["square"], lambda: session, crossing)
    student.square(2)
    student.square.each([(1,), (2,)])
    assert crossings == ["in", "out", "in", "out"]
