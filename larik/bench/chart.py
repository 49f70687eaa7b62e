"""The report's chart: pass rate against cost per pass, one point per model, as an SVG.

Plain string templating (an SVG is a few dozen elements; a plotting library would be a heavy
dependency for it). Up and to the left is better: more passes for less money. Each point has
its pass rate's Wilson interval as a vertical bar. Models without a cost per pass (no price, or
nothing passed) cannot be placed on the cost axis and are named under the chart.

Every name is user, suite or model input: ``svg_text`` makes it one line of XML text (control
characters, which XML 1.0 forbids, become spaces; ``& < > " '`` become entities), so no name can
close an element or open a ``<script>``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from html import escape

from .formats import plain
from .summary import ModelSummary, ranked

__all__ = ["chart_svg", "nice_ticks", "svg_text"]

WIDTH, HEIGHT = 760, 480
LEFT, RIGHT, TOP, BOTTOM = 70, 30, 46, 84  # margins: the plot is inside
PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b")
MAX_LABEL = 40  # characters of a model name beside its point


def svg_text(text: object) -> str:
    return escape(plain(text), quote=True)


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """Ticks from 0 to at least ``top`` at a 1-2-5 step, about ``count`` of them."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    n = math.ceil(top / step - 1e-9)
    return [round(i * step, 12) for i in range(n + 1)]


def _money(v: float) -> str:
    if v == 0:
        return "$0"
    if v >= 1:
        return f"${v:g}"
    return f"${v:.{max(2, -math.floor(math.log10(v)) + 1)}f}".rstrip("0")


def chart_svg(summaries: list[ModelSummary]) -> str:
    order = ranked(summaries)
    placed = [s for s in order if s.cost_per_pass is not None]
    left_out = [s for s in order if s.cost_per_pass is None]
    xticks = nice_ticks(max((s.cost_per_pass or 0.0 for s in placed), default=0.0) * 1.05)
    xmax = xticks[-1]
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(v: float) -> float:
        return LEFT + pw * v / xmax

    def y(rate: float) -> float:
        return TOP + ph * (1 - rate)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        "<title>larik bench: pass rate vs cost per pass</title>",
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="24" font-size="15" font-weight="bold">'
        "pass rate vs cost per pass</text>",
        f'<text x="{WIDTH - RIGHT}" y="24" text-anchor="end" fill="#555">'
        "bars: 95% Wilson interval · up and left is better</text>",
    ]
    for i in range(6):  # pass rate: 0, 20, … 100 %
        rate = i / 5
        out.append(
            f'<line x1="{LEFT}" y1="{y(rate):.1f}" x2="{LEFT + pw}" y2="{y(rate):.1f}" '
            'stroke="#e4e4e4"/>'
            f'<text x="{LEFT - 8}" y="{y(rate) + 4:.1f}" text-anchor="end">{i * 20}%</text>'
        )
    for v in xticks:
        out.append(
            f'<line x1="{x(v):.1f}" y1="{TOP}" x2="{x(v):.1f}" y2="{TOP + ph}" stroke="#e4e4e4"/>'
            f'<text x="{x(v):.1f}" y="{TOP + ph + 18}" text-anchor="middle">{_money(v)}</text>'
        )
    out.append(
        f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#888"/>'
        f'<text x="{LEFT + pw / 2}" y="{TOP + ph + 38}" text-anchor="middle">'
        "cost per pass (USD)</text>"
        f'<text transform="translate(18 {TOP + ph / 2}) rotate(-90)" text-anchor="middle">'
        "pass rate</text>"
    )
    for n, s in enumerate(placed):
        out.append(_point(s, x(s.cost_per_pass or 0.0), y, PALETTE[n % len(PALETTE)], pw))
    if left_out:
        names = ", ".join(svg_text(s.model) for s in left_out)
        out.append(
            f'<text x="{LEFT}" y="{HEIGHT - 12}" fill="#555">'
            f"not placed (no price or no pass): {names}</text>"
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _point(s: ModelSummary, px: float, y: Callable[[float], float], colour: str, pw: float) -> str:
    lo, hi = s.interval
    py = y(s.pass_rate)
    label = plain(s.model)
    if len(label) > MAX_LABEL:
        label = label[: MAX_LABEL - 1] + "…"
    right = px > LEFT + pw * 0.7  # near the right edge: the label goes to the left
    tx, anchor = (px - 8, "end") if right else (px + 8, "start")
    tip = (
        f"{s.model}: {s.pass_rate:.1%} pass ({s.passes}/{s.runs}, 95% CI {lo:.0%}–{hi:.0%}), "
        f"${s.cost_per_pass or 0:.4f} per pass"
    )
    return (
        f"<g><title>{svg_text(tip)}</title>"
        f'<line x1="{px:.1f}" y1="{y(lo):.1f}" x2="{px:.1f}" y2="{y(hi):.1f}" '
        f'stroke="{colour}" stroke-width="2"/>'
        f'<circle cx="{px:.1f}" cy="{py:.1f}" r="5" fill="{colour}"/>'
        f'<text x="{tx:.1f}" y="{py - 8:.1f}" text-anchor="{anchor}" fill="{colour}">'
        f"{svg_text(label)}</text></g>"
    )
