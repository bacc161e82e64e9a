"""Mutation operators on plain expressions: arithmetic, comparisons, logic, numbers, slices, argument order.

Each operator takes one node of the tree and its parent, and yields every :class:`Change` it
makes of that node (none when the node is not its kind).
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping

import libcst as cst

from grader.authoring.mutation.syntax import (
    Change,
    between,
    code,
    integer_value,
    keyword_of,
    number,
    refit_operands,
    short,
)

BINARY = {
    "+": cst.Add, "-": cst.Subtract, "*": cst.Multiply, "/": cst.Divide, "//": cst.FloorDivide, "**": cst.Power,
    "@": cst.MatrixMultiply,
}  # fmt: skip
AUGMENTED = {
    "+": cst.AddAssign, "-": cst.SubtractAssign, "*": cst.MultiplyAssign, "/": cst.DivideAssign,
    "//": cst.FloorDivideAssign, "**": cst.PowerAssign, "@": cst.MatrixMultiplyAssign,
}  # fmt: skip
#: What each arithmetic operator becomes: its inverse, and the mistakes it is confused with.
ARITHMETIC = {
    "+": ("-", "*"),
    "-": ("+", "/"),
    "*": ("/", "+", "**", "@"),
    "/": ("*", "//", "-"),
    "//": ("/", "*"),
    "**": ("*", "/"),
    "@": ("*",),
}
COMPARISON = {
    "<": cst.LessThan, "<=": cst.LessThanEqual, ">": cst.GreaterThan, ">=": cst.GreaterThanEqual,
    "==": cst.Equal, "!=": cst.NotEqual, "is": cst.Is, "is not": cst.IsNot, "in": cst.In, "not in": cst.NotIn,
}  # fmt: skip
#: Each comparison becomes its boundary shifted, its reverse and its negation.
COMPARISONS = {
    "<": ("<=", ">", ">="),
    "<=": ("<", ">=", ">"),
    ">": (">=", "<", "<="),
    ">=": (">", "<=", "<"),
    "==": ("!=",),
    "!=": ("==",),
    "is": ("is not",),
    "is not": ("is",),
    "in": ("not in",),
    "not in": ("in",),
}
#: Arguments whose values the array operators change instead (``axis=``, ``keepdims=``).
ARRAY_KEYWORDS = frozenset({"axis", "keepdims"})


def _symbol(operator: cst.CSTNode, table: Mapping[str, type]) -> str | None:
    return next((symbol for symbol, kind in table.items() if isinstance(operator, kind)), None)


def _same_spacing(kind: type, old: cst.CSTNode) -> cst.CSTNode:
    return kind(whitespace_before=old.whitespace_before, whitespace_after=old.whitespace_after)  # type: ignore[attr-defined]  # an operator node


def arithmetic(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """``+ - * / // ** @`` swapped (in ``a + b`` and ``a += b``), ``a @ b`` made ``b @ a``, ``-x`` made ``x``."""
    if isinstance(node, cst.BinaryOperation):
        symbol = _symbol(node.operator, BINARY)
        if symbol is None:
            return
        for other in ARITHMETIC[symbol]:
            changed = node.with_changes(operator=_same_spacing(BINARY[other], node.operator))
            named = between(node.left, symbol, node.right), between(node.left, other, node.right)
            yield Change(node, refit_operands(changed), *named)
        if symbol == "@":
            swapped = node.with_changes(left=node.right, right=node.left)
            yield Change(node, refit_operands(swapped), short(code(node)), short(code(swapped)))
    elif isinstance(node, cst.AugAssign):
        symbol = _symbol(node.operator, AUGMENTED)
        if symbol is None:
            return
        for other in ARITHMETIC[symbol]:
            augmented = node.with_changes(operator=_same_spacing(AUGMENTED[other], node.operator))
            yield Change(node, augmented, f"{symbol}=", f"{other}=")
    elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and integer_value(node) is None:
        # (-1 is a number: the number operator changes it.)
        yield Change(node, node.expression, short(code(node)), short(code(node.expression)))


def comparison(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """``< <= > >= == != is in`` each made its boundary shift, its reverse and its negation."""
    if not isinstance(node, cst.ComparisonTarget):
        return
    symbol = _symbol(node.operator, COMPARISON)
    if symbol is None or not isinstance(parent, cst.Comparison):
        return
    index = next(i for i, target in enumerate(parent.comparisons) if target is node)
    left = parent.left if index == 0 else parent.comparisons[index - 1].comparator
    for other in COMPARISONS[symbol]:
        changed = node.with_changes(operator=_same_spacing(COMPARISON[other], node.operator))
        yield Change(node, changed, between(left, symbol, node.comparator), between(left, other, node.comparator))


def logic(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """``and`` and ``or`` swapped; ``True`` and ``False`` swapped."""
    if isinstance(node, cst.BooleanOperation):
        (before, after), kind = (
            (("and", "or"), cst.Or) if isinstance(node.operator, cst.And) else (("or", "and"), cst.And)
        )
        changed = node.with_changes(operator=_same_spacing(kind, node.operator))
        named = between(node.left, before, node.right), between(node.left, after, node.right)
        yield Change(node, refit_operands(changed), *named)
    elif isinstance(node, cst.Name) and node.value in ("True", "False") and keyword_of(parent) not in ARRAY_KEYWORDS:
        other = "False" if node.value == "True" else "True"
        yield Change(node, node.with_changes(value=other), node.value, other)


def numbers(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """Each integer and float literal made one more, one less, 0, 1 and 2."""
    if not isinstance(node, cst.Integer | cst.Float) or keyword_of(parent) in ARRAY_KEYWORDS:
        return
    value: int | float
    try:
        value = int(node.value, 0) if isinstance(node, cst.Integer) else float(node.value)
    except ValueError:
        return
    kind = int if isinstance(node, cst.Integer) else float
    seen = {value}
    for other in (value + 1, value - 1, kind(0), kind(1), kind(2)):
        if other in seen or not math.isfinite(other):
            continue
        seen.add(other)
        replacement = number(other)
        yield Change(node, replacement.with_changes(lpar=node.lpar, rpar=node.rpar), node.value, code(replacement))


def slices(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """Each bound of a slice (``a[i:j]``) made one more and one less."""
    if not isinstance(node, cst.Slice):
        return
    for bound in (node.lower, node.upper):
        if bound is None:
            continue
        value = integer_value(bound)
        for delta, operator in ((1, cst.Add()), (-1, cst.Subtract())):
            if value is not None:
                replacement: cst.BaseExpression = number(value + delta)
            else:
                replacement = refit_operands(cst.BinaryOperation(bound, operator, cst.Integer("1")))
            yield Change(bound, replacement, short(code(bound)), short(code(replacement)))


def arguments(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """The two arguments of a call swapped (``f(a, b)``), and the two items of a list or tuple passed to a call."""
    if isinstance(node, cst.Call):
        items: list[cst.Arg] | list[cst.BaseElement] = list(node.args)
        if len(items) != 2 or any(a.keyword is not None or a.star for a in node.args):
            return
    elif isinstance(node, cst.List | cst.Tuple) and isinstance(parent, cst.Arg):
        items = list(node.elements)
        if len(items) != 2 or not all(isinstance(e, cst.Element) for e in items):
            return
    else:
        return
    first, second = items
    swapped = [first.with_changes(value=second.value), second.with_changes(value=first.value)]
    changed = node.with_changes(args=swapped) if isinstance(node, cst.Call) else node.with_changes(elements=swapped)
    values = f"{code(first.value)}, {code(second.value)}"
    yield Change(node, changed, short(values), short(f"{code(second.value)}, {code(first.value)}"))
