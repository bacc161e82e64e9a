"""Helpers for rewriting a syntax tree: a change, a node's text, and parentheses where precedence needs them.

A mutation operator returns :class:`Change` objects: one node of the tree (by identity) and what
replaces it. A replacement may bind more loosely than what it replaces (``a * b`` made ``a + b``
inside ``(…) * c``); :func:`fit` adds the parentheses that keep the tree's meaning in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

#: How tightly each kind of expression binds (Python's operator precedence, loosest first).
ATOM = 16
_BINARY = {
    cst.BitOr: 6, cst.BitXor: 7, cst.BitAnd: 8, cst.LeftShift: 9, cst.RightShift: 9, cst.Add: 10, cst.Subtract: 10,
    cst.Multiply: 11, cst.MatrixMultiply: 11, cst.Divide: 11, cst.FloorDivide: 11, cst.Modulo: 11, cst.Power: 13,
}  # fmt: skip
UNARY = 12


@dataclass(frozen=True)
class Change:
    """``old`` (a node of the tree) becomes ``new``; ``before`` and ``after`` name the change in the mutant's id.

    ``at`` is the node whose line the id gives (``old`` unless set): dropping an argument replaces
    the whole call, but the line is the argument's.
    """

    old: cst.CSTNode
    new: cst.CSTNode
    before: str
    after: str
    at: cst.CSTNode | None = None


def code(node: cst.CSTNode) -> str:
    """The source text of one node."""
    return cst.Module(body=[]).code_for_node(node)


def short(text: str, limit: int = 48) -> str:
    """``text`` on one line, whitespace runs made single spaces, cut at ``limit`` characters."""
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def precedence(node: cst.CSTNode) -> int:
    """How tightly ``node`` binds; parenthesised expressions and atoms bind tightest."""
    if getattr(node, "lpar", None):
        return ATOM
    if isinstance(node, cst.BinaryOperation):
        return _BINARY[type(node.operator)]
    if isinstance(node, cst.UnaryOperation):
        return 4 if isinstance(node.operator, cst.Not) else UNARY
    if isinstance(node, cst.Comparison):
        return 5
    if isinstance(node, cst.BooleanOperation):
        return 3 if isinstance(node.operator, cst.And) else 2
    if isinstance(node, cst.IfExp):
        return 1
    if isinstance(node, (cst.Lambda, cst.Tuple, cst.NamedExpr, cst.Yield)):
        return 0
    if isinstance(node, cst.Await):
        return 14
    return ATOM


def slot_precedence(parent: cst.CSTNode | None, child: cst.CSTNode) -> int:
    """The precedence an expression needs to stand, unparenthesised, where ``child`` stands in ``parent``."""
    if isinstance(parent, cst.BinaryOperation):
        level = _BINARY[type(parent.operator)]
        if isinstance(parent.operator, cst.Power):
            return 14 if parent.left is child else UNARY
        return level if parent.left is child else level + 1
    if isinstance(parent, cst.UnaryOperation):
        return 4 if isinstance(parent.operator, cst.Not) else UNARY
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
        return 6
    if isinstance(parent, cst.BooleanOperation):
        level = 3 if isinstance(parent.operator, cst.And) else 2
        return level if parent.left is child else level + 1
    if isinstance(parent, cst.IfExp):
        return 1 if parent.orelse is child else 2
    if isinstance(parent, cst.CompIf):
        return 2
    if isinstance(parent, cst.Attribute | cst.Call | cst.Subscript):
        return ATOM if getattr(parent, "value", getattr(parent, "func", None)) is child else 0
    if isinstance(parent, cst.Await):
        return 15
    return 0


def parenthesize(node: cst.BaseExpression) -> cst.BaseExpression:
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def fit(node: cst.CSTNode, needed: int) -> cst.CSTNode:
    """``node``, in parentheses if it binds more loosely than ``needed``."""
    if isinstance(node, cst.BaseExpression) and precedence(node) < needed:
        return parenthesize(node)
    return node


def refit_operands(node: cst.BinaryOperation | cst.BooleanOperation) -> cst.BaseExpression:
    """``node`` with each operand in parentheses if the (new) operator binds more tightly than it."""
    left = fit(node.left, slot_precedence(node, node.left))
    right = fit(node.right, slot_precedence(node, node.right))
    return node.with_changes(left=left, right=right)


def integer_value(node: cst.CSTNode) -> int | None:
    """The value of an integer literal, or of a negated one (``-1``); else None."""
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) and not node.lpar:
        inner = integer_value(node.expression)
        return None if inner is None else -inner
    return None


def number(value: int | float) -> cst.BaseExpression:
    """A literal for ``value``: negative numbers are a unary minus before a literal, as Python parses them."""
    literal: cst.BaseExpression = (
        cst.Integer(str(abs(value))) if isinstance(value, int) else cst.Float(repr(abs(value)))
    )
    return cst.UnaryOperation(cst.Minus(), literal) if value < 0 else literal


def keyword_of(node: cst.CSTNode | None) -> str | None:
    """The keyword of an argument (``axis`` for ``axis=1``), or None."""
    return node.keyword.value if isinstance(node, cst.Arg) and node.keyword is not None else None


def _edge(node: cst.BaseExpression, side: str) -> cst.BaseExpression:
    """The operand of ``node`` next to an operator on its ``side`` (the rightmost one of ``a * b`` is ``b``)."""
    while isinstance(node, cst.BinaryOperation | cst.BooleanOperation) and not node.lpar:
        node = node.right if side == "right" else node.left
    return node


def between(left: cst.BaseExpression, operator: str, right: cst.BaseExpression) -> str:
    """An operator with its neighbouring operands, to say which one changed: ``n_layers * n_kv_heads``."""
    return short(f"{short(code(_edge(left, 'right')), 24)} {operator} {short(code(_edge(right, 'left')), 24)}")
