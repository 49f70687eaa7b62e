"""One line at the bottom: model (and role), effort, context used, tokens and cost, permissions."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.widgets import Static

__all__ = ["StatusBar", "agent_spec", "human_tokens", "status_text"]


def human_tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1000:
        return f"{n / 1000:.1f}k"
    return str(n)


def agent_spec(agent: Any) -> str:
    """``provider/model`` of the agent's current model."""
    spec = getattr(agent, "spec", "")
    if spec:
        return str(spec)
    model = getattr(agent, "model", "") or ""
    provider = getattr(agent, "provider_name", "") or ""
    return f"{provider}/{model}" if provider and model else model


def status_text(agent: Any, *, busy: bool = False, note: str = "") -> Text:
    """The status line for ``agent`` (None before a model is ready)."""
    t = Text(no_wrap=True, overflow="ellipsis")
    if busy:
        t.append("● ", style="yellow")
    if agent is None:
        t.append(note or "no model yet", style="dim")
        return t
    t.append(agent_spec(agent) or "?", style="bold")
    role = getattr(agent, "role", None)
    if role and role != "main":
        t.append(f" ({role})")
    effort = getattr(agent, "effort", "") or "default"
    t.append(f" · effort {effort}")
    window = getattr(agent, "context_window", 0) or 0
    used = getattr(agent, "context_tokens", 0) or 0
    if window:
        pct = used * 100 / window
        style = "red" if pct >= 80 else ("yellow" if pct >= 60 else "")
        t.append(" · ")
        t.append(f"ctx {pct:.0f}%", style=style)
    usage = getattr(agent, "total_usage", None)
    total = usage.total if usage is not None else 0
    t.append(f" · {human_tokens(total)} tok")
    cost = getattr(agent, "total_cost", None)
    t.append(f" · ${cost:.4f}" if cost is not None else " · $?")
    t.append(f" · {getattr(agent, 'permission_mode', '') or 'ask'}")
    if note:
        t.append(f" · {note}", style="dim")
    return t


class StatusBar(Static):
    DEFAULT_CSS = "StatusBar { height: 1; }"

    def show(self, agent: Any, *, busy: bool = False, note: str = "") -> None:
        self.update(status_text(agent, busy=busy, note=note))
