"""Mutation operators on array code: reductions, ``axis=``, ``keepdims=`` and transposes.

These are the mistakes of numpy code that plain expression operators do not make: the wrong
reduction, over the wrong axis, with or without the reduced axis kept, or a missing transpose.
"""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from grader.authoring.mutation.syntax import ATOM, Change, code, fit, integer_value, keyword_of, number, short

#: Reductions and their opposites, as functions (``np.max(x)``, ``max(a, b)``) or methods (``x.max()``).
REDUCTIONS = {
    "max": "min", "min": "max", "amax": "amin", "amin": "amax", "nanmax": "nanmin", "nanmin": "nanmax",
    "argmax": "argmin", "argmin": "argmax", "maximum": "minimum", "minimum": "maximum", "fmax": "fmin",
    "fmin": "fmax", "sum": "mean", "mean": "sum", "nansum": "nanmean", "nanmean": "nansum",
}  # fmt: skip
#: Of those, the builtins (a bare ``sum(…)`` has no builtin ``mean`` to become).
BUILTIN_REDUCTIONS = frozenset({"max", "min"})
#: What each ``axis=`` value becomes (any other integer becomes 0).
AXES = {0: (1, -1), 1: (0,), -1: (0,)}
NUMPY = frozenset({"np", "numpy"})


def reductions(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """``max``↔``min``, ``sum``↔``mean`` (and argmax, maximum, nansum, …) where they are called."""
    if not isinstance(node, cst.Call):
        return
    func = node.func
    if isinstance(func, cst.Name) and func.value in BUILTIN_REDUCTIONS:
        changed: cst.BaseExpression = func.with_changes(value=REDUCTIONS[func.value])
    elif isinstance(func, cst.Attribute) and func.attr.value in REDUCTIONS:
        changed = func.with_changes(attr=func.attr.with_changes(value=REDUCTIONS[func.attr.value]))
    else:
        return
    yield Change(func, changed, short(code(func)), short(code(changed)))


def _dropped(call: cst.Call, index: int) -> cst.Call:
    """``call`` without its argument ``index``, and without a comma left dangling at the end."""
    args = [a for i, a in enumerate(call.args) if i != index]
    if args and index == len(call.args) - 1:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


def axis(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """Each ``axis=`` value changed (0↔1, -1↔0, others made 0), and the argument dropped."""
    if not isinstance(node, cst.Call):
        return
    for index, arg in enumerate(node.args):
        if keyword_of(arg) != "axis":
            continue
        value = integer_value(arg.value)
        if value is not None:
            for other in AXES.get(value, (0,)):
                yield Change(arg.value, number(other), f"axis={code(arg.value)}", f"axis={other}")
        yield Change(node, _dropped(node, index), short(code(arg).rstrip(", ")), "dropped", at=arg)


def keepdims(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """``keepdims=True`` made ``False`` (and the other way), and the argument dropped."""
    if not isinstance(node, cst.Call):
        return
    for index, arg in enumerate(node.args):
        if keyword_of(arg) != "keepdims":
            continue
        value = arg.value
        if isinstance(value, cst.Name) and value.value in ("True", "False"):
            other = "False" if value.value == "True" else "True"
            yield Change(value, value.with_changes(value=other), f"keepdims={value.value}", f"keepdims={other}")
        yield Change(node, _dropped(node, index), short(code(arg).rstrip(", ")), "dropped", at=arg)


def _is_transpose(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Attribute) and node.attr.value == "T"


def transposes(node: cst.CSTNode, parent: cst.CSTNode | None) -> Iterator[Change]:
    """``x.T``, ``x.transpose()`` and ``np.transpose(x)`` made ``x``; ``.T`` added to each operand of ``@``."""
    if _is_transpose(node):
        assert isinstance(node, cst.Attribute)
        yield Change(node, node.value, short(code(node)), short(code(node.value)))
    elif isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value == "transpose":
        target = node.func.value
        if isinstance(target, cst.Name) and target.value in NUMPY:
            if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
                inner = node.args[0].value
                yield Change(node, inner, short(code(node)), short(code(inner)))
        elif not node.args:
            yield Change(node, target, short(code(node)), short(code(target)))
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.MatrixMultiply):
        for operand in (node.left, node.right):
            if not _is_transpose(operand):
                transposed = cst.Attribute(value=fit(operand, ATOM), attr=cst.Name("T"))  # type: ignore[arg-type]  # fit keeps an expression one
                yield Change(operand, transposed, short(code(operand)), short(code(transposed)))
