"""A known mistake: one mutant of an exercise, compiled once, run from a fresh module each time.

The reference and the mutants are the exercise's own files, trusted like its checks: the grader
runs them in its own process to name the mistake a wrong answer makes.
"""

from __future__ import annotations

import collections
import dis
import types
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class KnownMistake:
    """One mutant of an exercise: its name, what it gets wrong, its hint id, and its code."""

    name: str
    mistake: str
    hint: str
    code: types.CodeType
    #: Whether its functions keep state between calls in module globals, as the solution's run would
    #: across checks: such a mutant is replayed after the calls of the checks before.
    keeps_state: bool = False

    @classmethod
    def from_source(cls, name: str, mistake: str, hint: str, source: str, filename: str) -> KnownMistake:
        code = compile(source, filename, "exec")
        return cls(name, mistake, hint, code, keeps_state=_keeps_state(code))

    def fresh_module(self) -> types.ModuleType:
        module = types.ModuleType(f"mutant_{self.name.replace('-', '_')}")
        exec(self.code, module.__dict__)  # noqa: S102  (the exercise's own file, trusted like its checks)
        return module


def _keeps_state(code: types.CodeType) -> bool:
    """Whether a module's functions write globals or use module-level mutable objects (a list, a dict, …)."""
    module = types.ModuleType("probe")
    try:
        exec(code, module.__dict__)  # noqa: S102  (the exercise's own file, trusted like its checks)
    except Exception:  # noqa: BLE001
        return False
    mutable = {name for name, value in vars(module).items() if isinstance(value, _MUTABLE)}
    for inner in _code_objects(code):
        ops = {instruction.opname for instruction in dis.get_instructions(inner)}
        if "STORE_GLOBAL" in ops or "DELETE_GLOBAL" in ops or mutable & set(inner.co_names):
            return True
    return False


_MUTABLE = (list, dict, set, bytearray, np.ndarray, collections.deque)


def _code_objects(code: types.CodeType) -> list[types.CodeType]:
    """The code objects of the functions a module defines, nested ones included."""
    found: list[types.CodeType] = []
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            found.append(const)
            found += _code_objects(const)
    return found
