"""The face-neutral session core: one conversation that every face (TUI, print mode, bench,
an editor over ACP) builds the same way and drives (docs/architecture.md, "The session").

Importing this package imports no pydantic and no SDK (the TUI paints before either)."""

from __future__ import annotations

from .core import AmbiguousCommand, Session, SessionBusy, Subscription, Turn
from .events import SessionEvent, SessionEventType, TurnResult
from .options import AgentFactory, SessionOptions

__all__ = [
    "AgentFactory",
    "AmbiguousCommand",
    "Session",
    "SessionBusy",
    "SessionEvent",
    "SessionEventType",
    "SessionOptions",
    "Subscription",
    "Turn",
    "TurnResult",
]
