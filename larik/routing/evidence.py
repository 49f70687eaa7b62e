"""What ``larik bench`` measured, as evidence for routing suggestions."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..config import Config
from ..llm.errors import ConfigError, ResolveError
from .targets import target_in

__all__ = ["Evidence", "canonical_evidence", "load_evidence"]


@dataclass(frozen=True, slots=True)
class Evidence:
    """What ``larik bench`` measured for one model spec."""

    pass_rate: float
    """Fraction of bench runs whose check passed (0..1)."""
    runs: int
    """How many runs that rate is over."""
    cost_per_pass: float | None = None
    """USD spent per passing run (None when the price is unknown)."""

    @classmethod
    def from_results(cls, rows: Iterable[Mapping[str, Any]]) -> dict[str, Evidence]:
        """Aggregate bench result rows ``{"model": spec, "passed": bool, "cost": float|None}``."""
        runs: dict[str, int] = {}
        passes: dict[str, int] = {}
        costs: dict[str, float | None] = {}
        for row in rows:
            spec = str(row.get("model", ""))
            if not spec:
                continue
            runs[spec] = runs.get(spec, 0) + 1
            passes[spec] = passes.get(spec, 0) + (1 if row.get("passed") else 0)
            c = row.get("cost")
            prev = costs.get(spec, 0.0)
            costs[spec] = None if c is None or prev is None else prev + float(c)
        out: dict[str, Evidence] = {}
        for spec, n in runs.items():
            p = passes[spec]
            total = costs.get(spec)
            out[spec] = cls(
                pass_rate=p / n,
                runs=n,
                cost_per_pass=(total / p) if total is not None and p else None,
            )
        return out

    def describe(self) -> str:
        passed = round(self.pass_rate * self.runs)
        money = f", ${self.cost_per_pass:.3f}/pass" if self.cost_per_pass is not None else ""
        return f"bench {passed}/{self.runs} passed ({self.pass_rate:.0%}){money}"


def load_evidence(path: Path | None = None) -> dict[str, Evidence]:
    """Evidence from bench results (``config.bench_results_path()`` by default): one JSON
    object per line with ``model``, ``passed`` and ``cost``. Missing file: no evidence; bad lines
    are skipped."""
    from ..config import bench_results_path

    path = path or bench_results_path()
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return {}
    rows = []
    for line in lines:
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return Evidence.from_results(rows)


def canonical_evidence(evidence: Mapping[str, Evidence], config: Config) -> dict[str, Evidence]:
    """Key evidence by "provider/model" (bench records the spec as the user typed it), merging
    runs of specs that name the same model."""
    snap = config.routing()
    out: dict[str, Evidence] = {}
    for key, ev in evidence.items():
        try:
            spec = target_in(key, config, snap).spec
        except (ResolveError, ConfigError):
            spec = key
        prev = out.get(spec)
        if prev is None:
            out[spec] = ev
            continue
        runs = prev.runs + ev.runs
        passes = prev.pass_rate * prev.runs + ev.pass_rate * ev.runs
        spent = [
            e.cost_per_pass * e.pass_rate * e.runs
            for e in (prev, ev)
            if e.cost_per_pass is not None
        ]
        out[spec] = Evidence(
            pass_rate=passes / runs if runs else 0.0,
            runs=runs,
            cost_per_pass=sum(spent) / passes if len(spent) == 2 and passes else None,
        )
    return out
