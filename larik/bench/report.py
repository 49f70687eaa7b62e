"""Bench results: the JSONL history in the state dir, shards merged, and the terminal tables.

The figures themselves are worked out in ``summary.py``; the Markdown, JSON and CSV reports and
the chart are ``formats.py`` and ``chart.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..llm import jsontext
from ..terminal_text import safe
from .runner import RunResult
from .summary import ModelSummary, plan_text, ranked, summarize, summary_json

__all__ = [
    "ModelSummary",
    "append_results",
    "load_results",
    "merge_results",
    "render_report",
    "render_summary",
    "shown",
    "summarize",
    "summary_json",
]


# -- history -------------------------------------------------------------------------------


def append_results(path: Path, results: list[RunResult]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as fh:
        for r in results:
            fh.write(jsontext.dumps(r.to_json(), ensure_ascii=False) + "\n")
        fh.flush()


def load_results(path: Path) -> tuple[list[RunResult], list[str]]:
    """Stored results and one line per unreadable record (skipped)."""
    if not path.exists():
        return [], []
    results, problems = [], []
    fields = set(RunResult.__dataclass_fields__)
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            results.append(RunResult(**{k: v for k, v in data.items() if k in fields}))
        except (ValueError, TypeError):
            problems.append(f"{path}:{n}: not a bench result, skipped")
    return results, problems


def merge_results(paths: list[Path]) -> list[RunResult]:
    """Shard results joined into one run's: each file a ``--json`` list or a JSONL history. A
    run found in two files (overlapping shards, a file given twice) is a one-line error; the
    order is the stable (model, task, repeat) one, whatever order the shards finished in."""
    from ..llm.errors import ConfigError

    fields = set(RunResult.__dataclass_fields__)
    seen: dict[tuple[str, str, int], Path] = {}
    merged: list[RunResult] = []
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: cannot read ({e})") from None
        try:
            if text.lstrip().startswith("["):
                records = json.loads(text)
            else:
                records = [json.loads(line) for line in text.splitlines() if line.strip()]
            runs = [RunResult(**{k: v for k, v in d.items() if k in fields}) for d in records]
            keys = [(r.model, r.task, int(r.repeat)) for r in runs]
        except (ValueError, TypeError, AttributeError):
            raise ConfigError(f"{path}: not bench results (larik bench --json FILE)") from None
        for key, run in zip(keys, runs, strict=True):
            if key in seen:
                model, task, rep = key
                raise ConfigError(
                    f"{path}: {model} on {task} (run {rep}) is also in {seen[key]}; "
                    "shards must not overlap"
                )
            seen[key] = path
            merged.append(run)
    return sorted(merged, key=lambda r: (r.model, r.task, r.repeat))


# -- tables --------------------------------------------------------------------------------


def shown(value: object) -> Any:
    """Text from a task, a suite, a run or a results file as a Rich ``Text``: no console markup
    read in it (``[link=…]``), no escape sequence, bidi control or zero-width character obeyed
    (:mod:`larik.terminal_text`: a task's summary must not retitle or clear the terminal)."""
    from rich.text import Text

    return Text(safe(str(value)))


# A terminal too narrow for the whole table: each figure between its narrowest (its longest
# unbreakable piece: "$0.0320", "2026-12-01", a header's word; "well-formed" breaks at the
# hyphen) and its widest, so the model's name keeps the rest; the table has no outer edge.
NARROW = {
    "1st try": (5, 8),
    "pass rate, 95% CI": (6, 10),
    "$ / pass": (8, 8),
    "plan / pass": (6, 18),
    "total $": (8, 8),
    "median wall": (6, 11),
    "tool errors": (6, 6),
    "well-formed": (6, 6),
    "last run": (10, 10),
}

WHOLE = ("$ / pass", "total $", "last run")  # one piece each ("$0.0320", the day): not narrowed


def _column(table: Any, col: str, narrow: bool, justify: str = "right") -> None:
    if not narrow:
        table.add_column(col, justify=justify)
        return
    least, most = NARROW[col]
    whole = col in WHOLE
    head = col.replace("-", "-\n")
    table.add_column(head, justify=justify, min_width=least, max_width=most, no_wrap=whole)


class _Fitted:
    """A table built whole when the terminal has room for it (it was cut even at 140
    columns), else with its figures at their ``NARROW`` widths."""

    def __init__(self, build: Any) -> None:
        self.build = build  # (narrow: bool) -> Table

    def __rich_console__(self, console: Any, options: Any) -> Any:
        from rich.measure import Measurement

        table = self.build(False)
        if (
            Measurement.get(console, options.update_width(10_000), table).maximum
            > options.max_width
        ):
            table = self.build(True)
        yield table


def _money(v: float | None) -> str:
    if v is None:
        return "—"
    return f"${v:.4f}" if v < 1 else f"${v:.2f}"


def _rate(s: ModelSummary) -> str:
    """The pass rate, its count and its Wilson interval: ``67% (4/6) 30–90%``."""
    lo, hi = s.interval
    text = f"{s.pass_rate:.0%} ({s.passes}/{s.runs})"
    if len(s.repeat_rates) > 1:
        text += f" ±{s.spread:.0%}"
    return text + f" {100 * lo:.0f}–{hi:.0%}"


def _errors(s: ModelSummary) -> str:
    rate = s.tool_error_rate
    return "—" if rate is None else f"{rate:.0%}"


def render_summary(summaries: list[ModelSummary]) -> Any:
    """A rich renderable: one row per model, then the failures with their reasons."""
    from rich.console import Group
    from rich.table import Table

    parts: list[Any] = [_Fitted(lambda narrow: _summary_table(summaries, narrow))]
    fails = [f for s in ranked(summaries) for f in s.failures]
    if fails:
        ft = Table(title="failures", title_justify="left")
        ft.add_column("model", overflow="fold")
        ft.add_column("task", no_wrap=True)
        for col in ("run", "reason"):
            ft.add_column(col)
        ft.add_column("detail", overflow="fold")
        for f in fails:
            ft.add_row(*map(shown, (f.model, f.task, f.repeat, f.reason, f.detail[:80])))
        parts.append(ft)
    return Group(*parts)


def _summary_table(summaries: list[ModelSummary], narrow: bool) -> Any:
    from rich.table import Table

    table = Table(title="larik bench", title_justify="left", show_edge=not narrow)
    table.add_column("model", overflow="fold")
    tries = any(s.two_tries for s in summaries)
    cols = ["pass rate, 95% CI", "$ / pass", "total $", "median wall", "tool errors"]
    if tries:  # a suite: Aider's leaderboard figures too, the total $ making room (--format)
        cols[0:3] = ["1st try", "pass rate, 95% CI", "$ / pass"]
        cols.append("well-formed")
    plans = any(s.plan_spent for s in summaries)  # a signed-in plan: its windows, by the $
    if plans:
        cols.insert(cols.index("$ / pass") + 1, "plan / pass")
    for col in cols:
        _column(table, col, narrow)
    for s in ranked(summaries):
        first = [f"{s.pass_rate_1:.0%} ({s.first_passes}/{s.runs})"] if tries else []
        table.add_row(
            shown(s.model),
            *first,
            _rate(s),
            _money(s.cost_per_pass),
            *([plan_text(s.plan_per_pass) or "—"] if plans else []),
            *([] if tries else [_money(s.total_cost)]),
            f"{s.median_wall:.1f}s",
            _errors(s),
            *([f"{s.well_formed:.0%}"] if tries else []),
        )
    return table


def render_report(summaries: list[ModelSummary]) -> Any:
    """Past runs side by side: every model ever benched, with its latest figures."""
    return _Fitted(lambda narrow: _report_table(summaries, narrow))


def _report_table(summaries: list[ModelSummary], narrow: bool) -> Any:
    from rich.table import Table

    table = Table(title="larik bench --report", title_justify="left", show_edge=not narrow)
    table.add_column("model", overflow="fold")
    tries = any(s.two_tries for s in summaries)
    cols = ["pass rate, 95% CI", "$ / pass", "median wall", "tool errors", "last run"]
    if tries:
        cols[0:1] = ["1st try", "pass rate, 95% CI"]
        cols[-1:-1] = ["well-formed"]
    for col in cols:
        _column(table, col, narrow, "left" if col == "last run" else "right")
    for s in ranked(summaries):
        first = [f"{s.pass_rate_1:.0%}"] if tries else []
        table.add_row(
            shown(s.model),
            *first,
            _rate(s),
            _money(s.cost_per_pass),
            f"{s.median_wall:.1f}s",
            _errors(s),
            *([f"{s.well_formed:.0%}"] if tries else []),
            shown(s.last_run[:10]),  # the day
        )
    return table
