"""The agent: loop, transcript, permissions, tools, sessions, compaction.

``from larik.agent import Agent`` imports the loop lazily, so importing a submodule (the
transcript, the events) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .agent import Agent

__all__ = ["Agent"]


def __getattr__(name: str) -> Any:
    if name == "Agent":
        from .agent import Agent

        return Agent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
