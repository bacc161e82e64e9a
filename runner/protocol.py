"""What the grader asks a runner and what the runner answers: one vocabulary for both sides.

Every message is a dict sent with :mod:`wire`. The grader builds requests with the functions
below; the runner builds replies with them too, and the grader accepts a reply only if its keys
are exactly one of the shapes listed here. Nothing a reply says about the sandbox itself is
evidence: a reply carries the function's answer, or how it failed, and nothing else.

Only the standard library: this module is imported inside the sandbox too.
"""

from __future__ import annotations

import enum
from typing import Any


class Op(enum.StrEnum):
    """A request's ``op``."""

    LOAD = "load"  # {"op", "source", "functions"}: compile and run solution.py
    CALL = "call"  # {"op", "function", "args"}: one call
    CALL_EACH = "call_each"  # {"op", "function", "args_list"}: calls in order, in one crossing
    CALL_CHAIN = "call_chain"  # {"op", "function", "args_list", "feed"}: each call fed the previous one's result
    TRY = "try"  # {"op", "inputs"}: compile the learner's own lines (Try it), one step per statement
    TRY_STEP = "try_step"  # {"op", "index"}: run one statement of the inputs; its value, if it has one


#: The runner's first message, before any student code exists: the sandbox is up.
READY = {"ready": True}

# Reply shapes: the exact key sets the grader accepts.
LOADED = frozenset({"ok", "functions"})  # functions: name -> what the runner saw (or None)
SYNTAX_ERROR = frozenset({"syntax_error"})  # {"type", "message", "line", "column", "text"}
VALUE = frozenset({"ok", "value"})
VALUES = frozenset({"ok", "values"})
RAISED = frozenset({"raised"})  # {"type", "message", "line", "traceback"}
RAISED_IN_BATCH = frozenset({"raised", "index", "values"})  # which call of a batch raised
UNENCODABLE = frozenset({"unencodable"})  # the answer cannot cross: why
STEPS = frozenset({"ok", "steps"})  # the inputs' statements: [[line, source], ...]
NO_VALUE = frozenset({"ok"})  # a statement with no value to show (an import, a def, a loop)
AS_TEXT = frozenset({"ok", "text", "type"})  # a value that cannot cross, shown as the solution's repr of it
PROTOCOL_ERROR = frozenset({"protocol_error"})


def load(source: str, functions: list[str]) -> dict[str, Any]:
    return {"op": Op.LOAD.value, "source": source, "functions": functions}


def call(function: str, args: list[Any]) -> dict[str, Any]:
    return {"op": Op.CALL.value, "function": function, "args": args}


def call_each(function: str, args_list: list[list[Any]]) -> dict[str, Any]:
    return {"op": Op.CALL_EACH.value, "function": function, "args_list": args_list}


def syntax_error(kind: str, message: str, line: int | None, column: int | None, text: str) -> dict[str, Any]:
    return {"syntax_error": {"type": kind, "message": message, "line": line, "column": column, "text": text}}


def call_chain(function: str, args_list: list[list[Any]], argument: int, part: int) -> dict[str, Any]:
    """Calls in order; argument ``argument`` of each after the first is ``result[part]`` of the one before."""
    return {"op": Op.CALL_CHAIN.value, "function": function, "args_list": args_list, "feed": [argument, part]}


def try_inputs(inputs: str) -> dict[str, Any]:
    return {"op": Op.TRY.value, "inputs": inputs}


def try_step(index: int) -> dict[str, Any]:
    return {"op": Op.TRY_STEP.value, "index": index}


def steps(found: list[list[Any]]) -> dict[str, Any]:
    return {"ok": True, "steps": found}


def no_value() -> dict[str, Any]:
    return {"ok": True}


def as_text(type_name: str, text: str) -> dict[str, Any]:
    return {"ok": True, "text": text, "type": type_name}


def loaded(functions: dict[str, Any]) -> dict[str, Any]:
    return {"ok": True, "functions": functions}


def value(answer: Any) -> dict[str, Any]:
    return {"ok": True, "value": answer}


def values(answers: list[Any]) -> dict[str, Any]:
    return {"ok": True, "values": answers}


def raised(info: dict[str, Any], index: int | None = None, answers: list[Any] | None = None) -> dict[str, Any]:
    if index is None:
        return {"raised": info}
    return {"raised": info, "index": index, "values": answers or []}


def unencodable(reason: str) -> dict[str, Any]:
    return {"unencodable": reason}


def protocol_error(reason: str) -> dict[str, Any]:
    return {"protocol_error": reason}


def fed_part(previous: Any, part: int) -> Any:
    """What a chain feeds the next call: part ``part`` of the previous call's answer, the very object.

    One definition for the runner that feeds it and the grader that logs and replays it. An answer
    of the wrong form (no such part) feeds None: the grader reports that answer's form first.
    """
    try:
        return previous[part]
    except (TypeError, IndexError, KeyError):
        return None
