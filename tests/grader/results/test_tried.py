"""What a try reports: a value the wire cannot carry is shown as its repr, cut to the documented length."""

from __future__ import annotations

from grader.exercise import Exercise
from grader.grading.playground import try_solution
from grader.results.tried import VALUE_TEXT_CHARS, TriedValue

RIGHT = "def add(a, b):\n    return a + b\n"


def test_a_long_repr_is_cut_to_the_documented_length_saying_so(adder: Exercise) -> None:
    inputs = "class Long:\n    def __repr__(self):\n        return 'x' * 10_000\n\nLong()\n"
    tried = try_solution(adder, RIGHT, inputs)
    [value] = tried.values
    assert value.type == "Long (shown as its repr)"
    assert len(value.text) <= VALUE_TEXT_CHARS == 2000
    assert value.text.startswith("x" * 1900) and value.text.endswith("…")
    assert "2,000" in TriedValue.model_fields["text"].description
