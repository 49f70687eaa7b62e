"""Bench results: the JSONL history in the state dir, shards merged, and the terminal tables.

The figures themselves are worked out in ``summary.py``; the Markdown, JSON and CSV reports and
the chart are ``formats.py`` and ``chart.py``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

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
            fh.write(json.dumps(r.to_json(), ensure_ascii=False) + "\n")
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


# the figures' widths, so the model's name keeps the rest of a narrow terminal (the headers wrap)
NARROW = {
    "1st try": 8,
    "pass rate, 95% CI": 10,
    "$ / pass": 8,
    "plan / pass": 18,
    "total $": 8,
    "median wall": 11,
    "tool errors": 6,
    "well-formed": 6,
}


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

    table = Table(title="larik bench", title_justify="left")
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
        table.add_column(col, justify="right", max_width=NARROW.get(col))  # the model keeps room
    order = ranked(summaries)
    for s in order:
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
    parts: list[Any] = [table]
    fails = [f for s in order for f in s.failures]
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


def render_report(summaries: list[ModelSummary]) -> Any:
    """Past runs side by side: every model ever benched, with its latest figures."""
    from rich.table import Table

    table = Table(title="larik bench --report", title_justify="left")
    table.add_column("model", overflow="fold")
    tries = any(s.two_tries for s in summaries)
    cols = ["pass rate, 95% CI", "$ / pass", "median wall", "tool errors", "last run"]
    if tries:
        cols[0:1] = ["1st try", "pass rate, 95% CI"]
        cols[-1:-1] = ["well-formed"]
    for col in cols:  # these wrap, so the model keeps room
        justify: Literal["left", "right"] = "left" if col == "last run" else "right"
        table.add_column(col, justify=justify, max_width=NARROW.get(col))
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
