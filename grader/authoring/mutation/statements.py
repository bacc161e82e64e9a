"""Mutation operators on statements: a statement deleted (made ``pass``), a condition negated."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from grader.authoring.mutation.syntax import Change, code, fit, short

#: Statements never deleted: deleting an import or ``pass`` only makes a mutant that crashes or changes nothing.
KEPT = (cst.Pass, cst.Import, cst.ImportFrom)


def _is_docstring(node: cst.BaseSmallStatement) -> bool:
    return isinstance(node, cst.Expr) and isinstance(node.value, cst.SimpleString | cst.ConcatenatedString)


def deletion(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """Each simple statement (an assignment, a call, a ``return``, …) replaced by ``pass``."""
    if isinstance(node, cst.BaseSmallStatement) and not isinstance(node, KEPT) and not _is_docstring(node):
        yield Change(node, cst.Pass(semicolon=node.semicolon), short(code(node).rstrip("; ")), "pass")


def condition(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """The condition of each ``if``, ``elif``, ``while``, conditional expression and comprehension filter
    negated (``not (…)``, or ``not x`` made ``x``)."""
    if not isinstance(node, cst.If | cst.While | cst.IfExp | cst.CompIf):
        return
    test = node.test
    if isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not) and not test.lpar:
        negated: cst.BaseExpression = test.expression
    else:
        negated = cst.UnaryOperation(cst.Not(), fit(test, 5))  # type: ignore[arg-type]  # fit keeps an expression one
    yield Change(test, negated, short(code(test)), short(code(negated)))
