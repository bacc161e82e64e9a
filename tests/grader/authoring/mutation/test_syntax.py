"""Tree helpers: a node's text, precedence and the parentheses a replacement needs."""

from __future__ import annotations

import libcst as cst

from grader.authoring.mutation.syntax import (
    between,
    code,
    fit,
    integer_value,
    number,
    precedence,
    short,
    slot_precedence,
)


def expression(text: str) -> cst.BaseExpression:
    return cst.parse_expression(text)


def test_precedence_follows_python() -> None:
    order = ["lambda: 0", "a if b else c", "a or b", "a and b", "not a", "a < b", "a + b", "a * b", "-a", "a ** b"]
    levels = [precedence(expression(text)) for text in order]
    assert levels == sorted(levels) and len(set(levels)) == len(levels)
    assert precedence(expression("(a + b)")) == precedence(expression("a"))


def test_fit_adds_parentheses_only_where_the_slot_needs_them() -> None:
    product = expression("a * b")
    assert isinstance(product, cst.BinaryOperation)
    assert code(fit(expression("x + y"), slot_precedence(product, product.left))) == "(x + y)"
    assert code(fit(expression("x * y"), slot_precedence(product, product.left))) == "x * y"
    assert code(fit(expression("x * y"), slot_precedence(product, product.right))) == "(x * y)"
    assert code(fit(expression("x ** y"), slot_precedence(product, product.right))) == "x ** y"


def test_numbers_and_texts() -> None:
    assert code(number(-2)) == "-2" and integer_value(number(-2)) == -2
    assert code(number(1.5)) == "1.5"
    assert integer_value(expression("x")) is None
    assert short("a =\n    b", 48) == "a = b"
    assert short("x" * 60, 10) == "xxxxxxxxx…"
    left, right = expression("2 * n_layers * n_kv_heads"), expression("head_dim")
    assert between(left, "*", right) == "n_kv_heads * head_dim"
