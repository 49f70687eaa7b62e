"""``TurnDriver``: what drives a turn, named — the tool loop (:mod:`.loop`) is one, and the
edit workflow (:mod:`.edit_turn`) runs on it.

A driver calls the model with per-request options (:class:`Ask`), appends to the
conversation, runs tool calls through the tool runner (permissions, checkpoints, hooks, the
events a face shows) and says notices. Its messages are a read-only view: a caller changes the
conversation only by :meth:`~TurnDriver.append` and :meth:`~TurnDriver.leave_out`, and a reply
begun for the model (a prefill) is a request option, never a message in the live list.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ..llm.types import Block, Message
    from .events import AgentEvent
    from .turn import Reply

__all__ = ["Ask", "TurnDriver"]


@dataclass(frozen=True, slots=True)
class Ask:
    """One request's own options, beyond the profile's."""

    temperature: float | None = None
    """This request's temperature (None: the profile's)."""
    prefill: str = ""
    """The reply begun for the model (an assistant message it continues, sent with this
    request only); the reply it gives back holds the whole of it, this included."""


class TurnDriver(Protocol):
    @property
    def messages(self) -> Sequence[Message]:
        """The conversation as it is sent (read only)."""
        ...

    def call_model(self, reply: Reply, ask: Ask = ...) -> AsyncIterator[AgentEvent]:
        """Stream one reply into ``reply``; its events out as they come."""
        ...

    def append(self, message: Message, harness: bool = False) -> None:
        """Add ``message`` to the conversation (``harness``: written by the edit workflow,
        not the user)."""
        ...

    def leave_out(self, message: Message) -> None:
        """Leave ``message`` (a reply) out of what the model is sent from now on; the
        transcript keeps it (:func:`.edit_messages.put_out`)."""
        ...

    def run_calls(
        self,
        calls: list[Block],
        results: dict[int, Block],
        *,
        refuse: str = "",
        ends: dict[str, AgentEvent] | None = None,
    ) -> AsyncIterator[AgentEvent]:
        """Run ``calls`` through the tool runner, results into ``results`` by position
        (``refuse``: none runs, each is answered with this error; ``ends``: calls that are not
        in the conversation, each ``tool_end`` event kept there by call id)."""
        ...

    def notice(self, text: str, warn: bool = False) -> AgentEvent:
        """A notice event, recorded in the transcript."""
        ...
