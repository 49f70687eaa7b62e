"""What the agent tells its front ends (TUI, print mode, bench). Typed, never free strings.

The agent is driven as an async generator::

    async for ev in agent.run_turn("fix the failing test"):
        match ev.type: ...

Every front end consumes the same events. Permission questions are *not* events: the agent
awaits an ``Approver`` callback (the TUI shows a modal; print mode and bench answer by policy).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # annotations only: the TUI imports this module before its first frame
    from ..llm.types import Message, StopReason, Usage

__all__ = [
    "AgentEvent",
    "AgentEventType",
    "Approval",
    "Approver",
    "NoticeLevel",
    "PermissionRequest",
]


class AgentEventType(StrEnum):
    TEXT_DELTA = "text_delta"  # text: a piece of assistant text
    THINKING_DELTA = "thinking_delta"  # text: a piece of thinking
    MESSAGE = "message"  # message: a final Message appended to the transcript (either role)
    TOOL_START = "tool_start"  # tool_id, tool_name, tool_input (dict), text: one-line summary
    TOOL_OUTPUT = "tool_output"  # tool_id, tool_name, text: a running command's new output
    # (throttled and bounded: live.py), data: skipped (bytes left out before it), if any
    TOOL_END = "tool_end"  # tool_id, tool_name, text: result, is_error, duration, data (diff…)
    NOTICE = "notice"  # text, level: fallback switch, compaction, warnings
    USAGE = "usage"  # usage, model, role, cost (USD or None) for one model call
    TURN_END = "turn_end"  # stop_reason, text: final assistant text of the turn
    ERROR = "error"  # text: one-line error; the turn ended without finishing; data: sign_in
    # (the `larik login NAME` to run again, when the error was an expired sign-in)
    CHECKPOINT = "checkpoint"  # data: checkpoint (id), turn; at the turn's end also files, done


class NoticeLevel(StrEnum):
    INFO = "info"
    WARNING = "warning"
    ERROR = "error"


@dataclass(slots=True)
class AgentEvent:
    type: AgentEventType
    text: str = ""
    message: Message | None = None
    tool_id: str = ""
    tool_name: str = ""
    tool_input: dict[str, Any] = field(default_factory=dict)
    is_error: bool = False
    duration: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)
    level: NoticeLevel = NoticeLevel.INFO
    usage: Usage | None = None
    model: str = ""
    role: str = ""
    cost: float | None = None
    stop_reason: StopReason | None = None
    subagent: str = ""  # set on USAGE/NOTICE forwarded from a subagent: its role


@dataclass(slots=True)
class PermissionRequest:
    """A tool call that needs the user's approval. ``diff`` is set for file edits."""

    tool_name: str
    tool_input: dict[str, Any]
    summary: str
    diff: str = ""
    always: str = ""  # what "allow always" would cover, e.g. "bash commands: pytest …"


@dataclass(slots=True)
class Approval:
    allow: bool
    always: bool = False  # allow this kind of call for the rest of the session
    reason: str = ""  # sent to the model with a denial


Approver = Callable[[PermissionRequest], Awaitable[Approval]]
