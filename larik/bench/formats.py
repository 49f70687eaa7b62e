"""The bench report as a file: Markdown (with the chart as an SVG beside it), JSON or CSV.

Every format walks ``summary.FIGURES``, so a figure is the same number everywhere. Model names,
task names and failure details come from the user, a suite or a model's doing: each format
escapes them for its own syntax (``md_text``, ``csv_cell``, the SVG's ``chart.svg_text``), and
control characters become spaces first (``plain``), so no name can end a row, a cell or an
element, inject markup, or start a spreadsheet formula.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..llm import jsontext
from .summary import CONFIDENCE, FIGURES, ModelSummary, figure_row, plan_text, ranked

__all__ = [
    "FORMATS",
    "csv_cell",
    "md_text",
    "plain",
    "report_csv",
    "report_json",
    "report_md",
    "write_report",
]

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]|~!#{}()+])")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")  # what a spreadsheet takes as a formula's start


def plain(text: object) -> str:
    """``text`` on one line: control characters (newlines, tabs, escapes) become spaces."""
    return _CONTROL.sub(" ", str(text))


def md_text(text: object) -> str:
    """Text for a Markdown table cell: HTML's specials as entities (no tag survives), then
    Markdown's punctuation backslash-escaped (no cell break, emphasis, link or code span)."""
    t = plain(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", t)


def csv_cell(value: Any) -> Any:
    """A CSV value: numbers as they are, None empty, and text that a spreadsheet would run as a
    formula (``=cmd|...``, ``+``, ``-``, ``@``) prefixed with ``'`` (OWASP's advice)."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str):
        return value
    text = plain(value)
    return "'" + text if value.startswith(_FORMULA) else text


# -- JSON and CSV ------------------------------------------------------------------------


def report_json(summaries: list[ModelSummary], chart: str | None = None) -> str:
    data = {
        "interval": "wilson",
        "confidence": CONFIDENCE,
        "models": [figure_row(s) for s in ranked(summaries)],
    }
    return jsontext.dumps(data, indent=2, ensure_ascii=False) + "\n"


def report_csv(summaries: list[ModelSummary], chart: str | None = None) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([f.key for f in FIGURES])
    for s in ranked(summaries):
        writer.writerow([csv_cell(f.value(s)) for f in FIGURES])
    return buf.getvalue()


# -- Markdown ----------------------------------------------------------------------------


def _pct(v: float) -> str:
    return f"{100 * v:.1f}%"


def _ci(bounds: tuple[float, float]) -> str:
    lo, hi = bounds
    return f"{100 * lo:.0f}–{100 * hi:.0f}%"


def _usd(v: float | None) -> str:
    if v is None:
        return "—"
    return f"${v:.4f}" if v < 1 else f"${v:.2f}"


def _md_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def report_md(summaries: list[ModelSummary], chart: str | None = None) -> str:
    """The report in Markdown; ``chart`` is the SVG's file name, shown under the table."""
    order = ranked(summaries)
    tries = any(s.two_tries for s in order)
    runs = sum(s.runs for s in order)
    head = ["model", "runs", "pass rate", "95% CI"]
    if tries:
        head += ["1st try", "95% CI"]
    plans = any(s.plan_spent for s in order)  # a signed-in plan: its windows, by the $
    head += ["$ / pass", *(["plan / pass"] if plans else []), "total $", "median time"]
    head += ["tool errors", "well-formed"]
    lines = [
        "# larik bench report",
        "",
        f"{_count(runs, 'run')} of {_count(len(order), 'model')}. Pass rates with {CONFIDENCE:.0%} Wilson score "
        "intervals; cost per pass is the cost of every run, failed ones too, over the passes "
        "(cache reads and writes at their own prices); median time is per run; tool errors are "
        "malformed or failed tool calls over all tool calls. How to read it: docs/bench.md.",
        "",
        _md_row(head),
        _md_row(["---"] + ["--:"] * (len(head) - 1)),
    ]
    for s in order:
        cells = [md_text(s.model), str(s.runs), f"{_pct(s.pass_rate)} ({s.passes})"]
        cells.append(_ci(s.interval))
        if tries:
            cells += [f"{_pct(s.pass_rate_1)} ({s.first_passes})", _ci(s.interval_1)]
        rate = s.tool_error_rate
        cells += [
            _usd(s.cost_per_pass),
            *([md_text(plan_text(s.plan_per_pass) or "—")] if plans else []),
            _usd(s.total_cost),
            f"{s.median_wall:.1f}s",
            "—" if rate is None else f"{_pct(rate)} ({s.tool_errors}/{s.tool_calls})",
            _pct(s.well_formed),
        ]
        lines.append(_md_row(cells))
    if chart:
        lines += ["", f"![pass rate vs cost per pass]({md_link(chart)})"]
    fails = [f for s in order for f in s.failures]
    if fails:
        lines += ["", "## Failures", "", _md_row(["model", "task", "run", "reason", "detail"])]
        lines.append(_md_row(["---"] * 5))
        for f in fails:
            row = [f.model, f.task, str(f.repeat), f.reason, f.detail[:120]]
            lines.append(_md_row([md_text(c) for c in row]))
    return "\n".join(lines) + "\n"


def md_link(name: str) -> str:
    """A file name as a Markdown link target: percent-encoded, so it cannot close the link."""
    from urllib.parse import quote

    return quote(plain(name))


# -- writing -----------------------------------------------------------------------------

Renderer = Callable[[list[ModelSummary], str | None], str]
FORMATS: dict[str, Renderer] = {"md": report_md, "json": report_json, "csv": report_csv}


def write_report(fmt: str, summaries: list[ModelSummary], out: Path | None) -> str | None:
    """The report in ``fmt``: written to ``out`` (Markdown also writes the chart beside it,
    ``out`` with ``.svg``), or returned for stdout when ``out`` is None."""
    from ..llm.errors import ConfigError

    render = FORMATS[fmt]
    if out is None:
        return render(summaries, None)
    chart = out.with_suffix(".svg") if fmt == "md" else None
    if chart is not None and chart == out:
        raise ConfigError(f"--out {out}: the chart would overwrite the report; name it .md")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        if chart is not None:
            from .chart import chart_svg

            chart.write_text(chart_svg(summaries), encoding="utf-8")
        out.write_text(render(summaries, chart.name if chart else None), encoding="utf-8")
    except OSError as e:
        raise ConfigError(f"--out {out}: cannot write ({e.strerror or e})") from None
    return None


def _count(n: int, noun: str) -> str:
    """``1 run``, ``3 runs``."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
