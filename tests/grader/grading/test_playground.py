"""Try it, through the real sandbox: what a try says of the statement that stopped it."""

from __future__ import annotations

from grader.exercise import Exercise
from grader.grading.playground import try_solution
from grader.results.records import Reason

RIGHT = "def add(a, b):\n    return a + b\n"


def test_a_try_that_raises_names_the_statement_that_stopped_it(adder: Exercise) -> None:
    tried = try_solution(adder, RIGHT, "x = add(2, 3)\n\nadd(x,\n    None)\nadd(1, 1)\n")
    assert tried.reason is Reason.RAISED
    assert tried.failed is not None
    assert (tried.failed.line, tried.failed.source) == (3, "add(x,\n    None)")
    assert [v.line for v in tried.values] == [1]  # the lines before it ran; the one after did not


def test_a_try_that_does_not_parse_names_its_line_and_one_that_runs_names_none(adder: Exercise) -> None:
    tried = try_solution(adder, RIGHT, "add(1, 1)\ny = (\n")
    assert tried.reason is Reason.SYNTAX_ERROR
    assert tried.failed is not None and (tried.failed.line, tried.failed.source) == (2, "y = (")
    passed = try_solution(adder, RIGHT, "add(1, 1)\n")
    assert passed.reason is Reason.PASSED and passed.failed is None
