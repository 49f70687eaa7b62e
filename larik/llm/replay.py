"""Which blocks of a stored message may be sent to a given provider and model.

Thinking and opaque blocks are valid only for the model that produced them: they are sent
only when the message's ``model`` equals the target model *and* the block's ``provider``
equals the target provider. Text, tool calls, tool results and images are portable. The
transcript keeps everything, so switching back replays the original model's reasoning again.
Gemini's thought summaries carry provider ``gemini-display`` and so are never replayed.
"""

from __future__ import annotations

from .types import Block, Message

__all__ = ["replayable_blocks", "replayable_messages", "REPLAY_GATED"]

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
