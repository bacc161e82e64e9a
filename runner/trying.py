"""Try it, inside the jail: the learner's own lines run one statement at a time next to ``solution.py``.

The grader sends the text of the inputs; this module compiles it here, in the sandbox (parsing
and compiling untrusted text is the jail's work, like loading ``solution.py``), and says where each
top-level statement starts. Then each step runs one statement: an expression's value, or the value
an assignment assigns, goes back as plain data over the wire, as a function's answer does. Nothing
here is evidence of anything: the values are only shown.

Only the standard library (and ``runner.wire`` for the encodability check).
"""

from __future__ import annotations

import ast
import linecache
import types
from typing import Any

from runner import protocol

INPUTS_FILENAME = "<inputs>"
_SOURCE_CHARS = 200
_TEXT_CHARS = 4000
#: The name an assignment's value is kept under while its targets are assigned.
_VALUE = "_mlkata_value"
#: What a statement leaves to show: nothing, an expression's value, an assignment's value.
_NOTHING, _EXPRESSION, _ASSIGNED = 0, 1, 2


class Steps:
    """The compiled statements of the inputs, and the namespace they run in."""

    def __init__(self, module: types.ModuleType, inputs: str) -> None:
        linecache.cache[INPUTS_FILENAME] = (len(inputs), None, inputs.splitlines(True), INPUTS_FILENAME)
        tree = ast.parse(inputs, INPUTS_FILENAME, "exec")  # SyntaxError: the caller answers it
        self.namespace: dict[str, Any] = {k: v for k, v in module.__dict__.items() if not k.startswith("__")}
        self.namespace["__name__"] = "__inputs__"
        import numpy

        self.namespace.setdefault("np", numpy)
        self.namespace.setdefault("numpy", numpy)
        lines = inputs.splitlines()
        self.steps: list[tuple[int, str, types.CodeType, int]] = []
        for statement in tree.body:
            source = "\n".join(lines[statement.lineno - 1 : (statement.end_lineno or statement.lineno)]).strip()
            code, shows = _compiled(statement)
            self.steps.append((statement.lineno, source[:_SOURCE_CHARS], code, shows))

    def described(self) -> dict[str, Any]:
        return protocol.steps([[line, source] for line, source, _, _ in self.steps])

    def run(self, index: int, describe_exception: Any) -> dict[str, Any]:
        """Run step ``index``; its value, or how it raised."""
        if not 0 <= index < len(self.steps):
            return protocol.protocol_error(f"no step {index}")
        _, _, code, shows = self.steps[index]
        self.namespace.pop(_VALUE, None)
        try:
            exec(code, self.namespace)  # noqa: S102  (running the learner's lines is this module's job)
        except BaseException as exc:  # noqa: BLE001
            return protocol.raised(describe_exception(exc))
        if not shows:
            return protocol.no_value()
        value = self.namespace.pop(_VALUE, None)
        if value is None and shows == _EXPRESSION:
            return protocol.no_value()  # print(...) and the like: nothing to show, as in a console
        from runner import wire

        try:
            wire.encode_parts(protocol.value(value))
        except Exception:  # noqa: BLE001  (an object the wire does not carry: shown as its repr)
            try:
                text = repr(value)[:_TEXT_CHARS]
            except BaseException:  # noqa: BLE001  (a hostile __repr__)
                text = "<repr failed>"
            return protocol.as_text(type(value).__name__, text)
        return protocol.value(value)


def _compiled(statement: ast.stmt) -> tuple[types.CodeType, int]:
    """The statement as code, and whether it leaves a value to show (kept under ``_VALUE``)."""
    body: list[ast.stmt]
    shows = _ASSIGNED
    if isinstance(statement, ast.Expr):
        shows = _EXPRESSION
        body = [ast.Assign(targets=[ast.Name(_VALUE, ast.Store())], value=statement.value)]
    elif isinstance(statement, ast.Assign):
        keep = ast.Assign(targets=[ast.Name(_VALUE, ast.Store())], value=statement.value)
        body = [keep, ast.Assign(targets=statement.targets, value=ast.Name(_VALUE, ast.Load()))]
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None and statement.simple:
        keep = ast.Assign(targets=[ast.Name(_VALUE, ast.Store())], value=statement.value)
        body = [keep, ast.Assign(targets=[statement.target], value=ast.Name(_VALUE, ast.Load()))]
    else:
        body, shows = [statement], _NOTHING
    module = ast.Module(body=body, type_ignores=[])
    for node in body:
        ast.copy_location(node, statement)
    ast.fix_missing_locations(module)
    return compile(module, INPUTS_FILENAME, "exec", dont_inherit=True), shows
