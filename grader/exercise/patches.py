"""Unified diffs applied to a text, with the standard library: mutants written as ``mutants/<name>.diff``.

A mutant that changes one line of ``reference.py`` is clearer as the change itself::

    --- reference.py
    +++ mutants/no-scaling.py
    @@ -7,3 +7,3 @@
         values = np.vstack([cache["v"], v[None]])
    -    scores = keys @ q / np.sqrt(q.shape[0])
    +    scores = keys @ q
         weights = np.exp(scores - scores.max())

(``diff -u reference.py mutant.py`` writes one; so does ``mlkata check --mutation`` for each
survivor). The header lines are optional and not read. Each hunk must find its lines (context
and removed) in the reference: at the line its ``@@`` header names, or else at the one place
they occur after the previous hunk, so an edit of the reference above a hunk does not break it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchError(ValueError):
    """A diff that cannot be read, or one of whose hunks does not apply."""


@dataclass(frozen=True)
class Hunk:
    header: str  # the @@ line, as written
    line: int  # its line in the diff file
    old_start: int  # 1-based line of the text where the hunk's old lines begin (0 to insert at the top)
    old: tuple[str, ...]  # the lines it expects: context and removed
    new: tuple[str, ...]  # the lines it leaves: context and added

    def describe(self) -> str:
        return f"hunk {self.header} (line {self.line} of the diff)"


def parse_diff(diff: str) -> list[Hunk]:
    """The hunks of a unified diff of one file."""
    lines = diff.splitlines()
    hunks: list[Hunk] = []
    n = 0
    while n < len(lines):
        line = lines[n]
        match = _HUNK.match(line)
        if match is None:
            if hunks and line.strip() and not line.startswith("\\"):
                raise PatchError(f"line {n + 1} of the diff is not part of a hunk: {line!r}")
            n += 1  # the ---/+++ header (or a blank line between hunks)
            continue
        old_count = int(match.group(2) or 1)
        new_count = int(match.group(4) or 1)
        old: list[str] = []
        new: list[str] = []
        start, n = n, n + 1
        while (len(old) < old_count or len(new) < new_count) and n < len(lines):
            body = lines[n]
            n += 1
            if body.startswith("\\"):  # "\ No newline at end of file"
                continue
            kind, text = (body[:1] or " "), body[1:]  # an empty line: a blank context line whose space was trimmed
            if kind == " ":
                old.append(text)
                new.append(text)
            elif kind == "-":
                old.append(text)
            elif kind == "+":
                new.append(text)
            else:
                raise PatchError(f"line {n} of the diff is not part of a hunk: {body!r}")
        if len(old) != old_count or len(new) != new_count:
            raise PatchError(
                f"hunk {line} (line {start + 1} of the diff) ends early: it announces {old_count} old and "
                f"{new_count} new lines, and holds {len(old)} and {len(new)}"
            )
        hunks.append(Hunk(line, start + 1, int(match.group(1)), tuple(old), tuple(new)))
    if not hunks:
        raise PatchError("the diff holds no hunk (no line starting with @@)")
    return hunks


def apply_diff(text: str, diff: str, *, name: str = "the text") -> str:
    """``text`` with ``diff`` applied; raise :class:`PatchError` naming the hunk that does not apply."""
    lines = text.splitlines()
    result: list[str] = []
    cursor = 0  # lines of ``lines`` before it are done
    for hunk in parse_diff(diff):
        at = _place(lines, cursor, hunk, name)
        result += lines[cursor:at]
        result += hunk.new
        cursor = at + len(hunk.old)
    result += lines[cursor:]
    return "\n".join(result) + ("\n" if text.endswith("\n") or not text else "")


def _place(lines: list[str], cursor: int, hunk: Hunk, name: str) -> int:
    """Where the hunk's old lines are: at its stated line if they are there, else their one place after ``cursor``."""
    stated = max(hunk.old_start - 1, 0) if hunk.old else hunk.old_start
    size = len(hunk.old)
    if stated >= cursor and tuple(lines[stated : stated + size]) == hunk.old:
        return stated
    if size:
        found = [at for at in range(cursor, len(lines) - size + 1) if tuple(lines[at : at + size]) == hunk.old]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise PatchError(
                f"{hunk.describe()} does not apply: its lines are not at line {stated + 1} of {name}, and occur "
                f"{len(found)} times after it (add context lines)"
            )
    raise PatchError(f"{hunk.describe()} does not apply: {_first_difference(lines, stated, hunk, name)}")


def _first_difference(lines: list[str], at: int, hunk: Hunk, name: str) -> str:
    for offset, expected in enumerate(hunk.old):
        n = at + offset
        if n >= len(lines):
            return f"it expects {expected!r} at line {n + 1}, past the end of {name} ({len(lines)} lines)"
        if lines[n] != expected:
            return f"line {n + 1} of {name} is {lines[n]!r}, the hunk expects {expected!r}"
    return f"its lines are not at line {at + 1} of {name}"
