"""A provider's stream with the secrets Larik knows masked in its text and thinking deltas.

Masking each delta alone (print mode's :class:`~larik.llm.secrets.MaskingWriter`, the ACP
wire) misses a key the model echoes: a provider streams it in tokens, so no single delta holds
it whole. :func:`masked` keeps back each delta's end that could be the start of a secret
(:func:`~larik.llm.secrets.split_tail`) and sends it with the next delta of the same kind, or
before any other event (a tool call, a notice, ``done``) and at the end of the stream. A secret
split over deltas thus comes out as one ``***``; text that only looks like a secret's start is
sent a delta later, never lost. ``done`` is passed on as it is: its message is the model's own
words, sent back to the model and masked by the transcript writer.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

from .secrets import mask, split_tail
from .types import EventType, StreamEvent

__all__ = ["masked"]

_DELTAS = (EventType.TEXT_DELTA, EventType.THINKING_DELTA)


async def masked(events: AsyncIterator[StreamEvent]) -> AsyncGenerator[StreamEvent, None]:
    """``events`` with every recorded secret in the text and thinking deltas masked."""
    held: dict[EventType, str] = {}
    try:
        async for ev in events:
            if ev.type in _DELTAS:
                safe, held[ev.type] = split_tail(mask(held.get(ev.type, "") + ev.text))
                if safe:
                    yield StreamEvent(ev.type, safe)
                continue
            for kind in _DELTAS:  # what was kept back goes before what comes next
                if held.get(kind):
                    yield StreamEvent(kind, held.pop(kind))
            yield ev
    finally:
        aclose = getattr(events, "aclose", None)
        if aclose is not None:
            await aclose()
    for kind in _DELTAS:
        if held.get(kind):
            yield StreamEvent(kind, held.pop(kind))
