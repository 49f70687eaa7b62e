"""What a session tells its faces besides the agent's own events (``larik/agent/events.py``).

``Session.events()`` yields both kinds, in the order they happened: every :class:`AgentEvent` of
a turn, and a :class:`SessionEvent` for what belongs to the session rather than to a turn — a
notice (an MCP server failed, a custom command file is malformed), a change a status line shows
(model, mode, effort, MCP servers), the start and the end of a turn (the end carries its
:class:`TurnResult`), another conversation opened in this session's place (``/clear``,
``/resume``, a fork). Typed, never free strings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

__all__ = ["SessionEvent", "SessionEventType", "TurnResult"]


class SessionEventType(StrEnum):
    NOTICE = "notice"  # text, level: said once, outside a turn's own notices
    CHANGED = "changed"  # text: what (model, mode, effort, mcp, plan): a status line redraws
    TURN_STARTED = "turn_started"
    TURN_FINISHED = "turn_finished"  # result: the turn's TurnResult (the last event of a turn)
    OPENED = "opened"  # another conversation is the session's now (data: reason, messages)


@dataclass(slots=True)
class TurnResult:
    """How a turn ended. ``stop``: the model's stop reason (``end_turn``, ``max_tokens``,
    ``refusal``, …), ``max_turns``, ``budget``, ``error`` (``error`` says what) or ``cancelled``."""

    stop: str = ""
    text: str = ""  # the final assistant text
    error: str = ""
    plan: str = ""  # plan mode: the plan the turn ended with

    @property
    def cancelled(self) -> bool:
        return self.stop == "cancelled"


@dataclass(slots=True)
class SessionEvent:
    type: SessionEventType
    text: str = ""
    level: str = "info"  # info | warning | error (NoticeLevel's values)
    result: TurnResult | None = None
    data: dict[str, Any] = field(default_factory=dict)
