"""Usage and cost, totalled per model that answered and per role: ``agent.usage``.

One object the front ends read (the TUI's status line and ``/cost``, print mode's result), not
a property per total on the agent. A resumed session starts from its transcript's totals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..llm.types import Usage

__all__ = ["Accounting"]


@dataclass
class Accounting:
    by_model: dict[str, Usage] = field(default_factory=dict)
    """Tokens per model that answered (a fallback's model when it switched)."""
    cost_by_model: dict[str, float | None] = field(default_factory=dict)
    """Cost per model; None for a model the catalog has no price for."""
    by_role: dict[str, Usage] = field(default_factory=dict)
    """Tokens per role: main, compact, and the subagents' roles (explore, worker)."""
    providers: dict[str, str] = field(default_factory=dict)
    """The provider that served each model, when known (``/cost`` shows ``provider/model``)."""

    def add(
        self, model: str, role: str, usage: Usage, cost: float | None, provider: str = ""
    ) -> None:
        if provider:
            self.providers[model] = provider
        self.by_model[model] = self.by_model.get(model, Usage()) + usage
        self.by_role[role] = self.by_role.get(role, Usage()) + usage
        if cost is not None or model not in self.cost_by_model:
            prev = self.cost_by_model.get(model)
            self.cost_by_model[model] = (
                None if cost is None and prev is None else (prev or 0.0) + (cost or 0.0)
            )

    def charge(
        self, usage: Usage, model: str, provider: str | None, role: str, config: Any = None
    ) -> tuple[float | None, dict[str, Any]]:
        """Count a reply's ``usage`` at the catalog's price: its cost (None: no price known)
        and the transcript's ``usage`` record of it."""
        from ..llm.catalog import cost as price

        cost = price(usage, model, provider, config)
        self.add(model, role, usage, cost, provider or "")
        rec = {"kind": "usage", "model": model, "provider": provider, "role": role}
        return cost, {**rec, "usage": usage.model_dump(), "cost": cost}

    def spec(self, model: str, provider: str = "") -> str:
        """``provider/model`` for a model that answered (``provider``: the one to name when
        none was recorded, e.g. an older transcript's; the model alone when none is known): how
        ``model``, ``/cost`` and print mode's JSON name it — the one place."""
        provider = self.providers.get(model, "") or provider
        return f"{provider}/{model}" if provider and not model.startswith(f"{provider}/") else model

    @property
    def total(self) -> Usage:
        """Every model's tokens together."""
        out = Usage()
        for u in self.by_model.values():
            out = out + u
        return out

    @property
    def total_cost(self) -> float | None:
        """The sum of known costs; None when no model that answered has a known price."""
        known = [c for c in self.cost_by_model.values() if c is not None]
        return sum(known) if known else None
