"""Which blocks of a stored message may be sent to a given provider and model.

Thinking and opaque blocks are valid only for the model that produced them: they are sent
only when the message's ``model`` equals the target model *and* the block's ``provider``
equals the target provider. Text, tool calls, tool results and images are portable. The
transcript keeps everything, so switching back replays the original model's reasoning again.
Gemini's thought summaries carry provider ``gemini-display`` and so are never replayed.

The filter runs once per request, in the adapter that sends it (``messages_for``, called by each
converter): only the adapter knows which provider and model really answer — after a fallback
switch that is not the one the agent started with.
"""

from __future__ import annotations

from .types import Block, Message, Request

__all__ = [
    "REPLAY_GATED",
    "merge_adjacent",
    "messages_for",
    "replayable_blocks",
    "replayable_messages",
]

REPLAY_GATED = frozenset({"thinking", "opaque"})


def replayable_blocks(message: Message, provider: str, model: str) -> list[Block]:
    if not any(b.type in REPLAY_GATED for b in message.blocks):
        return message.blocks
    same_model = message.role == "assistant" and message.model == model
    return [
        b
        for b in message.blocks
        if b.type not in REPLAY_GATED or (same_model and b.provider == provider)
    ]


def replayable_messages(messages: list[Message], provider: str, model: str) -> list[Message]:
    """Every message with only its replayable blocks; messages left empty are dropped."""
    out: list[Message] = []
    for m in messages:
        blocks = replayable_blocks(m, provider, model)
        if blocks is m.blocks:
            out.append(m)
        elif blocks:
            out.append(m.model_copy(update={"blocks": blocks}))
    return out


def merge_adjacent(messages: list[Message]) -> list[Message]:
    """Providers want alternating roles: after an interrupt, or once a message is filtered
    away, two messages of one role can meet; they become one."""
    out: list[Message] = []
    for m in messages:
        if not m.blocks:
            continue
        if out and out[-1].role == m.role:
            out[-1] = out[-1].model_copy(update={"blocks": [*out[-1].blocks, *m.blocks]})
        else:
            out.append(m)
    return out


def messages_for(request: Request, provider: str) -> list[Message]:
    """The request's messages as ``provider`` may see them for ``request.model``: replayable
    blocks only; a message left empty is dropped, and the two of one role it stood between
    become one (roles must alternate)."""
    out: list[Message] = []
    dropped = False
    for m in request.messages:
        blocks = replayable_blocks(m, provider, request.model)
        if not blocks:
            dropped = True
            continue
        kept = m if blocks is m.blocks else m.model_copy(update={"blocks": blocks})
        if dropped and out and out[-1].role == kept.role:
            out[-1] = out[-1].model_copy(update={"blocks": [*out[-1].blocks, *kept.blocks]})
        else:
            out.append(kept)
        dropped = False
    return out
