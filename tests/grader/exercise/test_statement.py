"""Statements: Markdown with math left for KaTeX, folded hints, no raw HTML, clear errors."""

from __future__ import annotations

import pytest

from grader.exercise.statement import StatementError, render_statement


def test_math_is_kept_as_escaped_tex_for_the_page_to_typeset() -> None:
    html = render_statement("Scale by $1/\\sqrt{d}$:\n\n$$a < b$$\n")
    assert '<span class="math-inline">1/\\sqrt{d}</span>' in html
    assert '<div class="math-display">a &lt; b</div>' in html


def test_a_hint_block_is_folded() -> None:
    html = render_statement("Text\n\n::: hint\nTry this.\n:::\n")
    assert "<details" in html and "Try this." in html


def test_raw_html_is_escaped() -> None:
    assert "<script>" not in render_statement("<script>alert(1)</script>\n")


@pytest.mark.parametrize(("text", "message"), [("", "empty"), ("one\n\ncosts $5\n", r"line 3: unmatched '\$'")])
def test_a_statement_that_cannot_render_says_why(text: str, message: str) -> None:
    with pytest.raises(StatementError, match=message):
        render_statement(text)
