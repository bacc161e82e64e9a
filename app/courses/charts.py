"""Horizontal bar charts as SVG, laid out here and drawn by ``templates/courses/chart.html``.

Drawn on the server: no script, no CDN, nothing the Content-Security-Policy has to allow, and the
chart is in the page for screen readers (each bar has a <title>) and for printing.
"""

from __future__ import annotations

from dataclasses import dataclass

ROW = 30
BAR = 18
LABEL_WIDTH = 330
BAR_WIDTH = 400
VALUE_WIDTH = 130
MAX_LABEL = 48


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
        return self.label if len(self.label) <= MAX_LABEL else self.label[: MAX_LABEL - 1] + "…"


@dataclass(frozen=True)
class BarChart:
    title: str
    kind: str  # a CSS class of the bars: "check", "mistake" or "solved"
    bars: list[Bar]

    label_width: int = LABEL_WIDTH
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
