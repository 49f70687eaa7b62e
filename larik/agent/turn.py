"""A turn's moving parts, for the agent loop (:mod:`.agent`): how a turn ends (an exception
inside the loop), and the reply being streamed and the tool calls being run (what an interrupt
must keep and answer)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from ..llm.types import Block, Message, StopReason

__all__ = ["Partial", "Reply", "Running", "TurnOver"]


class TurnOver(Exception):
    def __init__(self, stop: StopReason, text: str = "", data: dict[str, Any] | None = None):
        self.stop, self.text, self.data = stop, text, data or {}


@dataclass
class Partial:
    """A reply being streamed: what an interrupt must keep. Pieces are joined only if an
    interrupt needs them (appending to one string per delta is quadratic on a long reply)."""

    model: str
    pieces: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(self.pieces)


@dataclass
class Running:
    """Tool calls being run: what an interrupt must answer."""

    calls: list[Block]
    results: dict[int, Block]
    task: asyncio.Task[None]
    harness: bool = False  # the edit workflow's own calls: no results to add to the conversation


@dataclass
class Reply:
    message: Message = field(default_factory=lambda: Message(role="assistant"))
    stop: StopReason = StopReason.END_TURN
