"""The face-neutral session core: one conversation that every face (TUI, print mode, bench,
an editor over ACP) builds the same way and drives (docs/architecture.md, "The session").

Importing this package imports no pydantic and no SDK (the TUI paints before either)."""

from __future__ import annotations

from .conversation import SessionBusy, Subscription, Turn
from .core import Session
from .events import SessionEvent, SessionEventType, TurnResult
from .options import AgentFactory, SessionOptions
from .port import AgentPort, SessionStatus
from .servers import AmbiguousCommand

__all__ = [
    "AgentFactory",
    "AgentPort",
    "AmbiguousCommand",
    "Session",
    "SessionBusy",
    "SessionEvent",
    "SessionEventType",
    "SessionOptions",
    "SessionStatus",
    "Subscription",
    "Turn",
    "TurnResult",
]
