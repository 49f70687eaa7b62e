"""Bench results: per-model summaries, the JSONL history in the state dir, and tables."""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .runner import RunResult

__all__ = [
    "ModelSummary",
    "append_results",
    "load_results",
    "merge_results",
    "render_report",
    "render_summary",
    "summarize",
    "summary_json",
]


@dataclass
class ModelSummary:
    model: str
    runs: int = 0
    passes: int = 0
    first_passes: int = 0  # passed on the first try (Aider's pass_rate_1)
    malformed: int = 0  # runs with at least one tool call the harness could not use
    two_tries: bool = False  # some task gave a second try: pass_rate_1 differs from the final
    repeat_rates: list[float] = field(default_factory=list)  # pass rate of each repeat
    total_cost: float | None = None
    median_wall: float = 0.0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    failures: list[RunResult] = field(default_factory=list)
    last_run: str = ""

    @property
    def pass_rate(self) -> float:
        return self.passes / self.runs if self.runs else 0.0

    @property
    def pass_rate_1(self) -> float:
        return self.first_passes / self.runs if self.runs else 0.0

    @property
    def well_formed(self) -> float:
        """Share of runs whose every tool call was usable (Aider's percent_cases_well_formed)."""
        return 1 - self.malformed / self.runs if self.runs else 1.0

    @property
    def spread(self) -> float:
        return statistics.pstdev(self.repeat_rates) if len(self.repeat_rates) > 1 else 0.0

    @property
    def cost_per_pass(self) -> float | None:
        if self.total_cost is None or not self.passes:
            return None
        return self.total_cost / self.passes

    @property
    def tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


def summarize(results: list[RunResult]) -> list[ModelSummary]:
    by_model: dict[str, list[RunResult]] = {}
    for r in results:
        by_model.setdefault(r.model, []).append(r)
    out = []
    for model, runs in by_model.items():
        s = ModelSummary(model=model, runs=len(runs), passes=sum(r.passed for r in runs))
        repeats: dict[int, list[bool]] = {}
        for r in runs:
            repeats.setdefault(r.repeat, []).append(r.passed)
        s.first_passes = sum(r.passed if r.first_try is None else r.first_try for r in runs)
        s.malformed = sum(r.bad_calls > 0 for r in runs)
        s.two_tries = any(r.tries > 1 or r.first_try not in (None, r.passed) for r in runs)
        s.repeat_rates = [sum(v) / len(v) for _, v in sorted(repeats.items())]
        costs = [r.cost for r in runs if r.cost is not None]
        s.total_cost = sum(costs) if costs else None
        s.median_wall = statistics.median(r.wall for r in runs)
        s.input_tokens = sum(r.input_tokens for r in runs)
        s.output_tokens = sum(r.output_tokens for r in runs)
        s.cache_read_tokens = sum(r.cache_read_tokens for r in runs)
        s.cache_write_tokens = sum(r.cache_write_tokens for r in runs)
        s.failures = [r for r in runs if not r.passed]
        s.last_run = max((r.finished for r in runs), default="")
        out.append(s)
    return out


def summary_json(s: ModelSummary) -> dict[str, Any]:
    """A model's figures under the names of Aider's leaderboard (pass_rate_1, pass_rate_2,
    percent_cases_well_formed, in percent) plus ours."""
    return {
        "model": s.model,
        "runs": s.runs,
        "pass_rate_1": round(100 * s.pass_rate_1, 1),
        "pass_rate_2": round(100 * s.pass_rate, 1),
        "percent_cases_well_formed": round(100 * s.well_formed, 1),
        "malformed_cases": s.malformed,
        "total_cost": s.total_cost,
        "cost_per_pass": s.cost_per_pass,
        "median_wall": round(s.median_wall, 2),
    }


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


def _money(v: float | None) -> str:
    if v is None:
        return "—"
    return f"${v:.4f}" if v < 1 else f"${v:.2f}"


def _rate(s: ModelSummary) -> str:
    text = f"{s.pass_rate:.0%} ({s.passes}/{s.runs})"
    if len(s.repeat_rates) > 1:
        text += f" ±{s.spread:.0%}"
    return text


def render_summary(summaries: list[ModelSummary]) -> Any:
    """A rich renderable: one row per model, then the failures with their reasons."""
    from rich.console import Group
    from rich.table import Table

    table = Table(title="larik bench", title_justify="left")
    table.add_column("model", overflow="fold")
    tries = any(s.two_tries for s in summaries)
    cols = ["pass rate", "$ / pass", "total $", "median wall", "tokens"]
    if tries:  # a suite with Aider's protocol: its leaderboard's figures too
        cols[0:1] = ["1st try", "pass rate"]
        cols.append("well-formed")
    for col in cols:
        table.add_column(col, justify="right")  # wraps, so the model name keeps room
    ranked = sorted(summaries, key=lambda s: (-s.pass_rate, s.cost_per_pass or float("inf")))
    for s in ranked:
        first = [f"{s.pass_rate_1:.0%} ({s.first_passes}/{s.runs})"] if tries else []
        table.add_row(
            s.model,
            *first,
            _rate(s),
            _money(s.cost_per_pass),
            _money(s.total_cost),
            f"{s.median_wall:.1f}s",
            f"{s.tokens:,}",
            *([f"{s.well_formed:.0%}"] if tries else []),
        )
    parts: list[Any] = [table]
    fails = [f for s in ranked for f in s.failures]
    if fails:
        ft = Table(title="failures", title_justify="left")
        ft.add_column("model", overflow="fold")
        ft.add_column("task", no_wrap=True)
        for col in ("run", "reason"):
            ft.add_column(col)
        ft.add_column("detail", overflow="fold")
        for f in fails:
            ft.add_row(f.model, f.task, str(f.repeat), f.reason, f.detail[:80])
        parts.append(ft)
    return Group(*parts)


def render_report(results: list[RunResult]) -> Any:
    """Past runs side by side: every model ever benched, with its latest figures."""
    from rich.table import Table

    table = Table(title="larik bench --report", title_justify="left")
    table.add_column("model", overflow="fold")
    summaries = summarize(results)
    tries = any(s.two_tries for s in summaries)
    cols = ["runs", "pass rate", "$ / pass", "median wall", "last run"]
    if tries:
        cols[1:2] = ["1st try", "pass rate"]
        cols[-1:-1] = ["well-formed"]
    for col in cols:  # these wrap, so the model keeps room
        table.add_column(col, justify="left" if col == "last run" else "right")
    for s in sorted(summaries, key=lambda s: (-s.pass_rate, s.model)):
        first = [f"{s.pass_rate_1:.0%}"] if tries else []
        table.add_row(
            s.model,
            str(s.runs),
            *first,
            _rate(s),
            _money(s.cost_per_pass),
            f"{s.median_wall:.1f}s",
            *([f"{s.well_formed:.0%}"] if tries else []),
            s.last_run[:10],  # the day
        )
    return table
