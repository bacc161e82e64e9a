"""Render an exercise statement (Markdown with $…$ / $$…$$ math) to HTML.

Math is not typeset here: it is emitted as escaped TeX in ``<span class="math-inline">`` and
``<div class="math-display">`` elements, which the page typesets with KaTeX. A ``::: hint`` block
becomes a folded ``<details>`` element. Raw HTML in the Markdown is escaped, not passed through.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin


class StatementError(ValueError):
    """The statement cannot be rendered as written."""


def _render_hint_open(self: object, tokens: Sequence[Token], idx: int, options: object, env: object) -> str:
    if tokens[idx].nesting == 1:
        return '<details class="hint"><summary>Hint</summary>\n'
    return "</details>\n"


def _math_renderer(element: str, css: str) -> Callable[[object, Sequence[Token], int, object, object], str]:
    def render(self: object, tokens: Sequence[Token], idx: int, options: object, env: object) -> str:
        return f'<{element} class="{css}">{html.escape(tokens[idx].content)}</{element}>'

    return render


@lru_cache(maxsize=1)
def markdown_parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    md.use(
        dollarmath_plugin,
        allow_space=True,
        double_inline=True,
    )
    md.use(container_plugin, name="hint", render=_render_hint_open)
    for token_type, element, css in (
        ("math_inline", "span", "math-inline"),
        ("math_inline_double", "span", "math-display"),
        ("math_block", "div", "math-display"),
        ("math_block_label", "div", "math-display"),
    ):
        md.add_render_rule(token_type, _math_renderer(element, css))
    return md


def render_statement(markdown: str) -> str:
    """HTML for a statement; raise :class:`StatementError` for unbalanced math delimiters."""
    if not markdown.strip():
        raise StatementError("the statement is empty")
    md = markdown_parser()
    tokens = md.parse(markdown)
    for token in tokens:
        for child in token.children or []:
            if child.type == "text" and "$" in child.content:
                line = (token.map[0] + 1) if token.map else "?"
                raise StatementError(f"line {line}: unmatched '$' (write \\$ for a literal dollar sign)")
    return md.renderer.render(tokens, md.options, {})
