"""Horizontal bar charts as SVG, laid out here and drawn by ``templates/courses/chart.html``.

Drawn on the server: no script, no CDN, nothing the Content-Security-Policy has to allow, and the
chart is in the page for screen readers (each bar has a <title>) and for printing.
"""

from __future__ import annotations

from dataclasses import dataclass

ROW = 30
BAR = 18
LABEL_WIDTH = 360
LABEL_GAP = 10  # between a label's end and its bar
BAR_WIDTH = 370
VALUE_WIDTH = 130
FONT_SIZE = 13  # of the labels, in the SVG's units (static/src/courses.css: .chart text)

# Advance widths in em of DejaVu Sans, the widest of the usual sans-serif fonts, rounded up a little:
# a label that fits these fits in any of them. Anything not listed counts as wide.
_NARROW = dict.fromkeys(" !'(),./:;I[]fijlrt|", 0.42)
_LOWER = dict.fromkeys('abcdeghknopqsuvxyz0123456789_-=+*<>?"#$&^~≠√·', 0.64)
_WIDE = 1.0
_EM = {**_NARROW, **_LOWER, "m": 0.98, "w": 0.83}


def text_width(text: str, size: float = FONT_SIZE) -> float:
    """An upper estimate of how wide ``text`` is drawn at ``size``: the server cannot measure the client's font."""
    return size * sum(_EM.get(ch, 0.78 if ch.isupper() else _WIDE) for ch in text)


def fit_label(text: str, width: float) -> str:
    """``text``, cut short with an ellipsis where it would be wider than ``width``."""
    if text_width(text) <= width:
        return text
    cut = text
    while cut and text_width(cut.rstrip() + "…") > width:
        cut = cut[:-1]
    return cut.rstrip() + "…"


@dataclass(frozen=True)
class Bar:
    label: str
    fraction: float  # 0..1: the bar's length
    value: str  # what is written after it
    title: str  # the full sentence, for a tooltip and screen readers
    y: float
    width: float

    @property
    def short_label(self) -> str:
        """The label as drawn: what fits left of the bar (the whole of it is the bar's <title>)."""
        return fit_label(self.label, LABEL_WIDTH - LABEL_GAP)


@dataclass(frozen=True)
class BarChart:
    title: str
    kind: str  # a CSS class of the bars: "check", "mistake" or "solved"
    bars: list[Bar]

    label_width: int = LABEL_WIDTH
    label_gap: int = LABEL_GAP
    bar_width: int = BAR_WIDTH

    @property
    def width(self) -> int:
        return LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH

    @property
    def height(self) -> int:
        return max(1, len(self.bars)) * ROW + 6

    @property
    def bar_height(self) -> int:
        return BAR


def bar_chart(title: str, kind: str, rows: list[tuple[str, float, str, str]]) -> BarChart:
    """``rows`` of (label, fraction, value text, full title), one bar each, in the order given."""
    bars = []
    for n, (label, fraction, value, full) in enumerate(rows):
        clamped = min(1.0, max(0.0, fraction))
        bars.append(Bar(label, clamped, value, full, y=n * ROW + 4, width=round(clamped * BAR_WIDTH, 1)))
    return BarChart(title, kind, bars)
