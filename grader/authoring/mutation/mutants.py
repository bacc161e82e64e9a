"""Mutants of a reference solution: each one change of its syntax tree, a whole ``solution.py``, with a stable id.

The tree is libcst's, which keeps the file's formatting and comments: a mutant differs from the
reference only where it was changed, so its diff is one or two lines. A mutant's id names the
operator, the line and the text changed (``arithmetic@L10: / -> *``); two mutants that would get
the same id are told apart by ``#2``, ``#3`` in the order they occur. Ids are derived from the
reference alone, so every run gives the same ones, until the reference changes.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider

from grader.authoring.mutation.operators import OPERATORS
from grader.authoring.mutation.syntax import fit, slot_precedence


class MutationError(Exception):
    """The reference cannot be mutated (libcst cannot parse it)."""


@dataclass(frozen=True)
class Mutant:
    id: str
    operator: str
    line: int
    source: str

    def diff(self, reference: str, *, context: int = 2) -> str:
        """This mutant as a unified diff against ``reference``."""
        lines = difflib.unified_diff(
            reference.splitlines(keepends=True),
            self.source.splitlines(keepends=True),
            fromfile="reference.py",
            tofile=f"mutant {self.id}",
            n=context,
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


@dataclass(frozen=True)
class Derived:
    """The mutants of one reference, and how many candidates were left out and why."""

    mutants: tuple[Mutant, ...]
    not_compiling: int = 0
    duplicates: int = 0  # the same text as the reference or as an earlier mutant


def mutant_id(operator: str, line: int, before: str, after: str) -> str:
    return f"{operator}@L{line}: {before} -> {after}"


class _Nodes(cst.CSTVisitor):
    """Every node of a tree, in the order the source reads."""

    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.nodes.append(node)
        return True


def derive_mutants(reference: str) -> Derived:
    """Every mutant the operators make of ``reference``, leaving out those that do not compile or change nothing."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(reference))
    except cst.ParserSyntaxError as exc:
        raise MutationError(f"reference.py cannot be parsed for mutation: {exc}") from None
    positions = wrapper.resolve(PositionProvider)
    parents = wrapper.resolve(ParentNodeProvider)
    walker = _Nodes()
    wrapper.module.visit(walker)

    mutants: list[Mutant] = []
    seen_text = {reference}
    seen_ids: dict[str, int] = {}
    not_compiling = duplicates = 0
    for node in walker.nodes:
        for name, operator in OPERATORS.items():
            for change in operator(node, parents.get(node)):
                new = fit(change.new, slot_precedence(parents.get(change.old), change.old))
                source = wrapper.module.deep_replace(change.old, new).code  # type: ignore[attr-defined]  # deep_replace on a Module gives a Module
                if source in seen_text:
                    duplicates += 1
                    continue
                seen_text.add(source)
                try:
                    compile(source, "solution.py", "exec", dont_inherit=True)
                except (SyntaxError, ValueError):
                    not_compiling += 1
                    continue
                line = positions[change.at or change.old].start.line
                base = mutant_id(name, line, change.before, change.after)
                seen_ids[base] = seen_ids.get(base, 0) + 1
                ident = base if seen_ids[base] == 1 else f"{base} #{seen_ids[base]}"
                mutants.append(Mutant(ident, name, line, source))
    return Derived(tuple(mutants), not_compiling, duplicates)
