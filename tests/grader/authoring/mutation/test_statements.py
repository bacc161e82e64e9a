"""The statement operators: a statement deleted, a condition negated."""

from __future__ import annotations

from tests.grader.authoring.mutation.mutation_support import changed_lines, lines_of


def test_each_simple_statement_is_replaced_by_pass_but_not_imports_docstrings_or_pass() -> None:
    source = '''\
        """A module."""
        import numpy as np


        def f(x):
            """Twice x."""
            y = x * 2  # doubled
            pass
            return y
        '''
    found = changed_lines(source, "statement")
    assert found == {
        "statement@L7: y = x * 2 -> pass": "pass  # doubled",
        "statement@L9: return y -> pass": "pass",
    }


def test_each_statement_of_a_line_is_deleted_on_its_own() -> None:
    assert lines_of("def f(x):\n    a = 1; b = 2\n    return a + b\n", "statement") >= {"pass; b = 2", "a = 1; pass"}


def test_conditions_are_negated_and_negations_removed() -> None:
    source = """\
        def f(x, ok):
            if x > 0:
                return 1
            elif not ok:
                return 2
            return 3 if ok else 4
        """
    found = changed_lines(source, "condition")
    assert found == {
        "condition@L2: x > 0 -> not x > 0": "if not x > 0:",
        "condition@L4: not ok -> ok": "elif ok:",
        "condition@L6: ok -> not ok": "return 3 if not ok else 4",
    }
    assert lines_of("def f(a, b):\n    while a or b:\n        a = b = 0\n", "condition") == {"while not (a or b):"}
    assert lines_of("def f(xs):\n    return [x for x in xs if x]\n", "condition") == {"return [x for x in xs if not x]"}
