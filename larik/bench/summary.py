"""Bench figures per model: what the report shows, and how each number is worked out.

One ``ModelSummary`` per model from its runs (``summarize``), and ``FIGURES``: the table of the
report's columns — name, value, and how a person reads it — that every format (terminal,
Markdown, JSON, CSV) walks, so a figure cannot mean one thing in one format and another
elsewhere (docs/bench.md, "How to read the report").

The statistics:

* pass rates carry a **Wilson score interval** (95 %) on passes / runs: right at 0 % and 100 %
  and for few runs, where the normal approximation gives bounds outside 0..1 or of width 0;
* **cost per pass** is every run's cost, failed runs included, over the passes. A run's cost
  is the one the agent priced as it ran (``larik.llm.catalog.cost``: input, output, cache read
  and cache write tokens each at their own price); a run recorded without one is priced the
  same way from its four token tiers when the report is made. Unknown when any run that used
  tokens has no price, or nothing passed;
* **median time** is the median wall time of a run (agent and check);
* **plan per pass** is, for a signed-in plan's model (``larik login``), each usage window's
  percentage points every run spent (as the backend reported them before and after the run),
  failed runs included, over the passes: what a pass costs the plan, beside what it costs in
  dollars (nothing per token);
* the **tool-call error rate** is the share of the agent's tool calls whose result was an
  error: malformed (unknown tool, arguments that do not parse or validate) or failed (an edit
  whose text was not found, a command that timed out).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .runner import RunResult

__all__ = [
    "CONFIDENCE",
    "FIGURES",
    "Figure",
    "ModelSummary",
    "Pricer",
    "figure_row",
    "plan_text",
    "ranked",
    "run_cost",
    "summarize",
    "summary_json",
    "wilson",
]

CONFIDENCE = 0.95
_Z = statistics.NormalDist().inv_cdf(0.5 + CONFIDENCE / 2)  # 1.959963984540054

Pricer = Callable[[RunResult], float | None]


def wilson(passes: int, runs: int, z: float = _Z) -> tuple[float, float]:
    """The Wilson score interval for ``passes`` successes in ``runs`` trials (Wilson 1927;
    Newcombe 1998, method 3). No runs: the whole of 0..1."""
    if runs <= 0:
        return 0.0, 1.0
    p = passes / runs
    z2 = z * z
    centre = (p + z2 / (2 * runs)) / (1 + z2 / runs)
    half = z * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs)) / (1 + z2 / runs)
    return max(0.0, centre - half), min(1.0, centre + half)


def run_cost(r: RunResult, config: Any = None) -> float | None:
    """USD a run cost: as recorded, else its tokens priced by the catalog (cache tiers at their
    own prices); a run that used no tokens cost nothing; None when the model has no price."""
    if r.cost is not None:
        return r.cost
    from ..llm.catalog import cost
    from ..llm.types import Usage

    usage = Usage(
        input=r.input_tokens,
        output=r.output_tokens,
        cache_read=r.cache_read_tokens,
        cache_write=r.cache_write_tokens,
    )
    if not usage.total:
        return 0.0
    return cost(usage, r.model, None, config)


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
    plan_spent: dict[str, float] = field(default_factory=dict)  # window -> % points, all runs
    median_wall: float = 0.0
    tool_calls: int = 0
    tool_errors: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    tasks: int = 0
    failures: list[RunResult] = field(default_factory=list)
    last_run: str = ""

    @property
    def pass_rate(self) -> float:
        return self.passes / self.runs if self.runs else 0.0

    @property
    def pass_rate_1(self) -> float:
        return self.first_passes / self.runs if self.runs else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The pass rate's Wilson interval (``CONFIDENCE``)."""
        return wilson(self.passes, self.runs)

    @property
    def interval_1(self) -> tuple[float, float]:
        return wilson(self.first_passes, self.runs)

    @property
    def well_formed(self) -> float:
        """Share of runs whose every tool call was usable (Aider's percent_cases_well_formed)."""
        return 1 - self.malformed / self.runs if self.runs else 1.0

    @property
    def tool_error_rate(self) -> float | None:
        """Share of tool calls whose result was an error; None before any call was counted."""
        return self.tool_errors / self.tool_calls if self.tool_calls else None

    @property
    def spread(self) -> float:
        return statistics.pstdev(self.repeat_rates) if len(self.repeat_rates) > 1 else 0.0

    @property
    def cost_per_pass(self) -> float | None:
        if self.total_cost is None or not self.passes:
            return None
        return self.total_cost / self.passes

    @property
    def plan_per_pass(self) -> dict[str, float] | None:
        """Each plan window's percentage points spent per pass (None: no plan, or no pass)."""
        if not self.plan_spent or not self.passes:
            return None
        return {k: v / self.passes for k, v in self.plan_spent.items()}

    @property
    def tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_read_tokens
            + self.cache_write_tokens
        )


def summarize(results: list[RunResult], price: Pricer = run_cost) -> list[ModelSummary]:
    """One summary per model, in the order the models first appear."""
    by_model: dict[str, list[RunResult]] = {}
    for r in results:
        by_model.setdefault(r.model, []).append(r)
    return [_summary(model, runs, price) for model, runs in by_model.items()]


def _summary(model: str, runs: list[RunResult], price: Pricer) -> ModelSummary:
    s = ModelSummary(model=model, runs=len(runs), passes=sum(r.passed for r in runs))
    repeats: dict[int, list[bool]] = {}
    for r in runs:
        repeats.setdefault(r.repeat, []).append(r.passed)
    s.first_passes = sum(r.passed if r.first_try is None else r.first_try for r in runs)
    s.malformed = sum(r.bad_calls > 0 for r in runs)
    s.two_tries = any(r.tries > 1 or r.first_try not in (None, r.passed) for r in runs)
    s.repeat_rates = [sum(v) / len(v) for _, v in sorted(repeats.items())]
    costs = [price(r) for r in runs]
    s.total_cost = None if any(c is None for c in costs) else math.fsum(c or 0.0 for c in costs)
    for r in runs:  # a results file is read back: only numbers count
        for label, points in (r.plan_spent if isinstance(r.plan_spent, dict) else {}).items():
            if isinstance(points, int | float) and math.isfinite(points) and points >= 0:
                key = str(label)[:12]
                s.plan_spent[key] = s.plan_spent.get(key, 0.0) + float(points)
    s.median_wall = statistics.median(r.wall for r in runs)
    s.tool_calls = sum(r.tool_calls for r in runs)
    s.tool_errors = sum(r.tool_errors for r in runs)
    s.input_tokens = sum(r.input_tokens for r in runs)
    s.output_tokens = sum(r.output_tokens for r in runs)
    s.cache_read_tokens = sum(r.cache_read_tokens for r in runs)
    s.cache_write_tokens = sum(r.cache_write_tokens for r in runs)
    s.tasks = len({r.task for r in runs})
    s.failures = sorted((r for r in runs if not r.passed), key=lambda r: (r.task, r.repeat))
    s.last_run = max((r.finished for r in runs), default="")
    return s


def ranked(summaries: list[ModelSummary]) -> list[ModelSummary]:
    """Best first: pass rate, then cheaper per pass, then the name (a stable order, so merged
    shards and one run list the models alike)."""
    inf = float("inf")
    return sorted(
        summaries,
        key=lambda s: (
            -s.passes / s.runs if s.runs else 0.0,
            inf if s.cost_per_pass is None else s.cost_per_pass,
            s.model,
        ),
    )


# -- the figures every format shows ------------------------------------------------------


def _pct(v: float | None) -> float | None:
    return None if v is None else round(100 * v, 1)


def _usd(v: float | None) -> float | None:
    return None if v is None else round(v, 6)


@dataclass(frozen=True)
class Figure:
    """One column of the report: its name in JSON and CSV, its header in a table, its value
    (a number, text or None for unknown), and what it means (docs/bench.md)."""

    key: str
    header: str
    value: Callable[[ModelSummary], Any]
    means: str


FIGURES: tuple[Figure, ...] = (
    Figure("model", "model", lambda s: s.model, "the model spec benched"),
    Figure("runs", "runs", lambda s: s.runs, "runs: tasks × repeats"),
    Figure("tasks", "tasks", lambda s: s.tasks, "distinct tasks"),
    Figure("passes", "passes", lambda s: s.passes, "runs whose check passed in the end"),
    Figure("pass_rate_2", "pass rate", lambda s: _pct(s.pass_rate), "passes / runs, %"),
    Figure("pass_rate_2_low", "low", lambda s: _pct(s.interval[0]), "Wilson 95% lower bound, %"),
    Figure("pass_rate_2_high", "high", lambda s: _pct(s.interval[1]), "Wilson 95% upper, %"),
    Figure("pass_rate_1", "1st try", lambda s: _pct(s.pass_rate_1), "passed on the first try, %"),
    Figure("pass_rate_1_low", "low", lambda s: _pct(s.interval_1[0]), "its Wilson lower bound"),
    Figure("pass_rate_1_high", "high", lambda s: _pct(s.interval_1[1]), "its Wilson upper bound"),
    Figure("spread", "± repeats", lambda s: _pct(s.spread), "std. dev. of per-repeat rates, %"),
    Figure(
        "cost_per_pass", "$ / pass", lambda s: _usd(s.cost_per_pass), "USD of all runs / passes"
    ),
    Figure("total_cost", "total $", lambda s: _usd(s.total_cost), "USD of all runs"),
    Figure(
        "plan_per_pass",
        "plan / pass",
        lambda s: plan_text(s.plan_per_pass),
        "a signed-in plan's usage windows spent per pass, % points (5h 1.2% · wk 0.1%)",
    ),
    Figure("median_wall", "median time", lambda s: round(s.median_wall, 2), "seconds a run took"),
    Figure("tool_calls", "tool calls", lambda s: s.tool_calls, "the agent's tool calls"),
    Figure(
        "tool_error_rate",
        "tool errors",
        lambda s: _pct(s.tool_error_rate),
        "malformed or failed calls / calls, %",
    ),
    Figure(
        "percent_cases_well_formed",
        "well-formed",
        lambda s: _pct(s.well_formed),
        "runs with no malformed call, % (Aider's name)",
    ),
    Figure("malformed_cases", "malformed", lambda s: s.malformed, "runs with a malformed call"),
    Figure("input_tokens", "input", lambda s: s.input_tokens, "uncached input tokens"),
    Figure("output_tokens", "output", lambda s: s.output_tokens, "output tokens"),
    Figure("cache_read_tokens", "cache read", lambda s: s.cache_read_tokens, "cache hits"),
    Figure("cache_write_tokens", "cache write", lambda s: s.cache_write_tokens, "cache writes"),
)


def plan_text(points: dict[str, float] | None) -> str | None:
    """``5h 1.2% · wk 0.1%`` (None when there is nothing to say)."""
    if not points:
        return None
    return " · ".join(f"{label} {v:.1f}%" for label, v in points.items())


def figure_row(s: ModelSummary) -> dict[str, Any]:
    """A model's figures by ``FIGURES`` key, as JSON and CSV carry them."""
    return {f.key: f.value(s) for f in FIGURES}


def summary_json(s: ModelSummary) -> dict[str, Any]:
    """A model's figures under the names of Aider's leaderboard (pass_rate_1, pass_rate_2,
    percent_cases_well_formed, in percent) plus ours: ``figure_row``."""
    return figure_row(s)
