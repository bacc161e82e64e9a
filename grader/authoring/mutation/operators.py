"""The mutation operators, by name: the name is the first part of every mutant's id.

An operator is a function ``(node, parent) -> Iterator[Change]``; the families live in
:mod:`grader.authoring.mutation.expressions`, :mod:`grader.authoring.mutation.arrays` and
:mod:`grader.authoring.mutation.statements`. The order here is the order in which a node's mutants are made,
so when two operators make the same text, the first one names it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import libcst as cst

from grader.authoring.mutation import arrays, expressions, statements
from grader.authoring.mutation.syntax import Change

Operator = Callable[[cst.CSTNode, cst.CSTNode | None], Iterator[Change]]

OPERATORS: dict[str, Operator] = {
    "statement": statements.deletion,
    "condition": statements.condition,
    "arithmetic": expressions.arithmetic,
    "comparison": expressions.comparison,
    "logic": expressions.logic,
    "reduction": arrays.reductions,
    "axis": arrays.axis,
    "keepdims": arrays.keepdims,
    "transpose": arrays.transposes,
    "slice": expressions.slices,
    "arguments": expressions.arguments,
    "number": expressions.numbers,
}
