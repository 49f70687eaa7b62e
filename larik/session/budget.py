"""Spending budgets: a session stops before the request that would cross one.

``--max-budget-usd`` (print mode and the TUI) and the config's ``[budget] session_usd`` /
``turn_usd`` set them. Before each model request — the main agent's, a subagent's, a
compaction's — the agent asks :meth:`Budget.check`; a request whose estimated cost would take
the spending past a limit is not sent, and the turn ends with stop reason ``budget`` (print
mode's JSON says so; the TUI shows the notice; ACP ends the prompt ``max_turn_requests``).

The estimate: the request's tokens (its characters / 4, as compaction counts them; the
system prompt and the tool schemas included) at the catalog's input price — no cache
discount, so it errs on the side of stopping — plus, for the reply, the average output of the
replies this budget has seen so far at the output price. A model without a catalog price (an
unknown hosted model) cannot be estimated: its requests go, said once; a local or signed-in
plan's model costs nothing.

What counts is what the session spent since it started (a resumed conversation's earlier
cost is not this run's), read from the agent's own accounting, so a subagent's replies count
the moment they are made; ``/clear``, ``/resume`` and a fork carry the spending over.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .port import AgentPort

__all__ = ["Budget", "BudgetLimits", "limits_of"]


class BudgetLimits:
    """The limits in USD (None: no limit). A plain class: the session is built before the
    TUI's first frame, and a dataclass costs more to define than this whole module."""

    __slots__ = ("session_usd", "turn_usd")

    def __init__(self, session_usd: float | None = None, turn_usd: float | None = None) -> None:
        self.session_usd = session_usd
        self.turn_usd = turn_usd

    @property
    def any(self) -> bool:
        return self.session_usd is not None or self.turn_usd is not None


def limits_of(config: Any, max_budget_usd: float | None = None) -> BudgetLimits:
    """The config's ``[budget]``; ``max_budget_usd`` (the command line's) replaces its
    ``session_usd``."""
    table = getattr(config, "budget", None)
    session = getattr(table, "session_usd", None)
    turn = getattr(table, "turn_usd", None)
    return BudgetLimits(max_budget_usd if max_budget_usd is not None else session, turn)


def dollars(value: float) -> str:
    return f"${value:.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


class Budget:
    """The session's spending against its limits. ``adopt(agent, limits, config)`` when the
    session's agent changes (the config is loaded by then); ``begin_turn()`` at each turn's
    start; the agent calls ``check``. ``say``: a notice for the user (a model with no price)."""

    def __init__(self, say: Callable[[str], None] = lambda text: None) -> None:
        self.limits = BudgetLimits()
        self.config: Any = None
        self.say = say
        self._agent: AgentPort | None = None
        self._carried = (0.0, 0)  # spent (USD, output tokens) through the agents before this one
        self._base = (0.0, 0)  # the agent's own totals when it was adopted (a resumed session's)
        self._turn_start = 0.0
        self._replies = 0  # requests let through: the replies the output average is over
        self._unpriced: set[str] = set()  # models said once to have no price

    # -- what was spent -----------------------------------------------------------------------
    def _total(self, agent: AgentPort | None) -> tuple[float, int]:
        if agent is None:
            return 0.0, 0
        usage = agent.usage
        return float(usage.total_cost or 0.0), int(usage.total.output)

    def _spent(self) -> tuple[float, int]:
        """(USD, output tokens) of this session since it started."""
        (cost, out), (base_cost, base_out) = self._total(self._agent), self._base
        return self._carried[0] + max(0.0, cost - base_cost), self._carried[1] + out - base_out

    @property
    def spent(self) -> float:
        """USD spent in this session since it started."""
        return self._spent()[0]

    @property
    def turn_spent(self) -> float:
        return max(0.0, self.spent - self._turn_start)

    def adopt(self, agent: AgentPort, limits: BudgetLimits, config: Any = None) -> None:
        """``agent`` is the session's now (opened, or in the old one's place)."""
        self.limits, self.config = limits, config
        self._carried = self._spent()
        self._agent = agent
        self._base = self._total(agent)
        agent.budget_check = self.check if self.limits.any else None

    def begin_turn(self) -> None:
        self._turn_start = self.spent

    # -- before each request ------------------------------------------------------------------
    def estimate(self, request: Any, resolved: Any) -> float | None:
        """USD the request (and an average reply) would cost; None: no price known."""
        import json

        from ..agent.compaction import CHARS_PER_TOKEN, estimate_tokens
        from ..llm.catalog import lookup

        info = lookup(resolved.model, resolved.provider_name or None, self.config)
        if not info.priced:
            return None
        chars = sum(len(s) for s in request.system) + sum(
            len(t.name) + len(t.description) + len(json.dumps(t.input_schema, allow_nan=True))
            for t in request.tools
        )
        tokens = estimate_tokens(request.messages) + chars // CHARS_PER_TOKEN
        out = self._spent()[1] / self._replies if self._replies else 0
        return (tokens * (info.input_price or 0.0) + out * (info.output_price or 0.0)) / 1e6

    def check(self, request: Any, resolved: Any) -> str | None:
        """Why ``request`` must not be sent (it would cross a limit), or None."""
        cost = self.estimate(request, resolved)
        if cost is None:
            spec = str(getattr(resolved, "spec", "") or resolved.model)
            if spec not in self._unpriced:
                self._unpriced.add(spec)
                self.say(
                    f"budget: {spec} has no price in the catalog; its requests are not "
                    "counted against the budget (set input_price and output_price under "
                    f'[models."{spec}"] to count them)'
                )
            cost = 0.0
        spent, turn = self.spent, self.turn_spent
        for name, limit, used in (
            ("session", self.limits.session_usd, spent),
            ("turn", self.limits.turn_usd, turn),
        ):
            if limit is not None and used + cost > limit:
                return (
                    f"stopped: the next request (about {dollars(cost)}) would cross the {name} "
                    f"budget of {dollars(limit)} ({dollars(used)} spent)"
                )
        self._replies += 1
        return None

    # -- what a face shows --------------------------------------------------------------------
    def describe(self) -> str:
        """One line for ``/cost``: each limit, what is spent and what is left ("" for none)."""
        parts = []
        for name, limit, used in (
            ("session", self.limits.session_usd, self.spent),
            ("turn", self.limits.turn_usd, self.turn_spent),
        ):
            if limit is not None:
                left = max(0.0, limit - used)
                parts.append(
                    f"{name} {dollars(limit)}: {dollars(used)} spent, {dollars(left)} left"
                )
        return "Budget: " + "; ".join(parts) if parts else ""

    def to_json(self) -> dict[str, Any]:
        """Print mode's ``budget`` object."""
        return {
            "session_usd": self.limits.session_usd,
            "turn_usd": self.limits.turn_usd,
            "spent": round(self.spent, 6),
            "left": None
            if self.limits.session_usd is None
            else round(max(0.0, self.limits.session_usd - self.spent), 6),
        }
