"""The student's module as a check sees it: declared functions only, every call logged, crossings wrapped."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from grader.grading.proxy import Student
from grader.grading.session import SolutionRaised, SolutionSession
from grader.sandbox import Limits

SOLUTION = "def square(x):\n    if x < 0:\n        raise ValueError('negative')\n    return x * x\n"


@pytest.fixture
def session() -> Iterator[SolutionSession]:
    opened = SolutionSession(Limits(), jailed=False, warm=False)
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
    assert [(c.function, c.args, c.value, c.raised) for c in student.log.calls] == [
        ("square", (1,), 1, None), ("square", (2,), 4, None), ("square", (3,), 9, None),
        ("square", (-1,), None, "ValueError"),
    ]  # fmt: skip
    assert student.log.calls[0].batch == student.log.calls[1].batch != student.log.calls[2].batch


def test_a_chain_feeds_each_result_on_and_logs_what_was_fed(session: SolutionSession) -> None:
    chained = "def step(state, x):\n    return [state + x, state * 10]\n"
    session.load(chained, ["step"])
    student = Student(["step"], lambda: session)
    assert student.step.chain([(0, 1), (None, 2), (None, 3)], feed=(0, 0)) == [[1, 0], [3, 10], [6, 30]]
    assert [c.args for c in student.log.calls] == [(0, 1), (1, 2), (3, 3)]
    assert [c.fed for c in student.log.calls] == [None, (0, 0), (0, 0)]


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


def test_call_of_finds_the_call_whose_answer_holds_a_value(session: SolutionSession) -> None:
    pairs = "def pair(x):\n    return (x * 1000, [x * 2000, {'k': x * 3000}])\n"
    session.load(pairs, ["pair"])
    student = Student(["pair"], lambda: session)
    first, second, third = student.pair.each([(1,), (2,), (3,)])
    assert student.log.call_of(second[1][1]["k"]).args == (2,)  # a part of the second answer
    assert student.log.call_of(third).args == (3,)
    assert student.log.call_of(first[0]).args == (1,)
    assert student.log.call_of(1000.5) is None  # a value no answer holds: no call rather than a wrong one


def test_call_of_names_no_call_when_several_answers_share_the_value(session: SolutionSession) -> None:
    session.load("def small(x):\n    return 7\n", ["small"])
    student = Student(["small"], lambda: session)
    a, b = student.small.each([(1,), (2,)])
    assert a is b  # Python shares its small ints: 7 is in both answers
    assert student.log.call_of(a) is None
