"""Typeset a statement's math with KaTeX, as the page will, to find TeX errors before a student does.

The page typesets each ``$…$`` and ``$$…$$`` span in the browser, and shows a span KaTeX cannot
read as raw TeX. ``mlkata check`` renders every span of every statement here first, with the
front end's own KaTeX (``node_modules/katex``) and ``throwOnError: true``, in one ``node``
process for all of them, and reports each error with its file and line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from grader.exercise import markdown_parser

ROOT = Path(__file__).resolve().parents[2]
KATEX = ROOT / "node_modules" / "katex"
TIMEOUT_SECONDS = 120

# Reads [[tex, displayMode], …] on stdin; writes, for each span, null or KaTeX's error message.
_SCRIPT = """
const katex = require(process.argv[1]);
const chunks = [];
process.stdin.on("data", (chunk) => chunks.push(chunk));
process.stdin.on("end", () => {
  const spans = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const errors = spans.map(([tex, displayMode]) => {
    try {
      katex.renderToString(tex, { displayMode, throwOnError: true, strict: "ignore" });
      return null;
    } catch (error) {
      return String((error && error.message) || error);
    }
  });
  process.stdout.write(JSON.stringify(errors));
});
"""


class KatexUnavailable(RuntimeError):
    """``node`` or ``node_modules/katex`` is missing, or ``node`` failed: nothing was typeset."""


@dataclass(frozen=True)
class MathSpan:
    """One span of math in a statement."""

    tex: str
    display: bool
    line: int  # in statement.md, 1-based


def math_spans(markdown: str) -> list[MathSpan]:
    """Every math span of a statement, in order, each with its line (as the page will find them)."""
    spans: list[MathSpan] = []
    for token in markdown_parser().parse(markdown):
        if token.type in ("math_block", "math_block_label"):
            spans.append(MathSpan(token.content, True, (token.map[0] + 1) if token.map else 1))
            continue
        if token.type != "inline" or not token.children:
            continue
        first_line = (token.map[0] + 1) if token.map else 1
        cursor = 0
        for child in token.children:
            if child.type not in ("math_inline", "math_inline_double"):
                continue
            found = token.content.find(child.content, cursor)
            at = found if found >= 0 else cursor
            cursor = at + len(child.content)
            line = first_line + token.content.count("\n", 0, at)
            spans.append(MathSpan(child.content, child.type == "math_inline_double", line))
    return spans


def typeset_errors(spans: list[MathSpan]) -> list[str | None]:
    """KaTeX's error for each span (None where it typesets), all in one ``node`` process."""
    if not spans:
        return []
    node = shutil.which("node")
    if node is None:
        raise KatexUnavailable("node is not installed, so the math cannot be typeset (install Node.js 20 or newer)")
    if not (KATEX / "package.json").is_file():
        raise KatexUnavailable(f"KaTeX is not installed in {KATEX.parent} (run `make frontend`, or `npm ci`)")
    payload = json.dumps([[span.tex, span.display] for span in spans])
    try:
        run = subprocess.run(
            [node, "-e", _SCRIPT, str(KATEX)], input=payload.encode("utf-8"), capture_output=True,
            timeout=TIMEOUT_SECONDS, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise KatexUnavailable(f"node could not typeset the math: {exc}") from None
    try:
        errors = json.loads(run.stdout)
    except ValueError:
        errors = None
    if run.returncode != 0 or not isinstance(errors, list) or len(errors) != len(spans):
        detail = run.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or [f"exit status {run.returncode}"]
        raise KatexUnavailable(f"node could not typeset the math: {detail[0]}")
    # KaTeX underlines the offending characters with U+0332, which terminals render poorly.
    return [None if error is None else " ".join(str(error).replace("\u0332", "").split()) for error in errors]


def math_problems(statements: Mapping[str, str]) -> dict[str, list[str]]:
    """Each statement's TeX errors, as ``statement.md, line N: …``, typesetting all of them at once.

    ``statements`` maps a key (an exercise's slug) to its Markdown. Raises :class:`KatexUnavailable`.
    """
    spans = {key: math_spans(markdown) for key, markdown in statements.items()}
    every = [span for key in spans for span in spans[key]]
    errors = iter(typeset_errors(every))
    problems: dict[str, list[str]] = {}
    for key, own in spans.items():
        problems[key] = []
        for span in own:
            error = next(errors)
            if error is not None:
                problems[key].append(f"statement.md, line {span.line}: {error} (in {_shown(span)})")
    return problems


def _shown(span: MathSpan) -> str:
    tex = " ".join(span.tex.split())
    tex = tex if len(tex) <= 60 else tex[:57] + "…"
    return f"$${tex}$$" if span.display else f"${tex}$"
