"""What a face asks of a session: the model, the mode, the session to resume, what to leave out.

Light on purpose (a dataclass; :mod:`larik.agent.options` imports nothing at run time): the
TUI builds one before its first frame.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from ..agent.options import AgentOptions

__all__ = ["AgentFactory", "SessionOptions"]

# (approver=, model=, resume=) -> an agent: how a session builds its agent. The default is
# Agent.create with the session's options; the TUI's tests hand one on the scripted provider.
AgentFactory = Callable[..., Awaitable[Any]]


@dataclass
class SessionOptions(AgentOptions):
    """The agent's options (:class:`~larik.agent.options.AgentOptions`, handed to it whole)
    and the session's own."""

    max_budget_usd: float | None = None  # --max-budget-usd: the session's budget (budget.py)
    mcp: bool = True  # False: the configured MCP servers are not started (bench)
    commands: bool = True  # False: custom commands are not looked for (bench)
