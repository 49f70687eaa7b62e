"""answer(text): give the final answer and end the turn — the way out, as easy as a tool call.

A small model held to a grammar, or just used to calling tools, keeps calling them after a
result already holds what was asked (a grep whose first line is the answer, called three times
more). The small profile offers ``answer`` first among its tools. The agent takes a reply whose
only calls are ``answer`` as the model's final text (:func:`as_answer`: the stored message holds
it as a text block, so every provider replays it as an answer); ``run`` is reached only when
``answer`` comes with other calls, and says to answer alone.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from ...llm.types import Block, Message
from ...tool_names import ANSWER
from . import ToolArgs, ToolContext, ToolError, ToolResult

NAME = ANSWER
KIND = "read"
DESCRIPTION = (
    "Give your final answer and end your turn. Call it as soon as you have what the task asks "
    "for (a tool result that already holds the answer, or a change made and checked); `text` "
    "is what the user reads."
)


class Args(ToolArgs):
    text: str = Field(description="Your final answer.")


def target(args: Args) -> str:
    return ""


def summary(args: Args) -> str:
    line = args.text.strip().splitlines()[0] if args.text.strip() else ""
    return line[:80] + ("…" if len(line) > 80 else "")


async def run(args: Args, ctx: ToolContext) -> ToolResult:
    raise ToolError(
        "answer ends your turn only as the only call of a reply: the other calls ran; read "
        "their results, then call answer alone"
    )


def answer_text(arguments: dict[str, Any]) -> str | None:
    """The answer an ``answer`` call gives: its ``text``, or its one string argument under
    another name (``{"answer": …}``); None when it gives none."""
    text = arguments.get("text")
    if isinstance(text, str):
        return text
    strings = [v for v in arguments.values() if isinstance(v, str)]
    return strings[0] if len(strings) == 1 and len(arguments) == 1 else None


def as_answer(message: Message, offered: tuple[str, ...]) -> Message | None:
    """``message`` with its ``answer`` calls as text, when ``answer`` is ``offered``, those are
    its only calls and each gives an answer; None otherwise (other calls too: they run)."""
    uses = message.tool_uses()
    if ANSWER not in offered or not uses or any(u.name != ANSWER for u in uses):
        return None
    texts: list[str] = []
    for use in uses:
        try:
            text = answer_text(use.input_dict())
        except ValueError:  # arguments that are not a JSON object: a bad call, as any other
            return None
        if text is None:
            return None
        texts.append(text)
    kept = [b for b in message.blocks if b.type != "tool_use"]
    answer = Block.text_block("\n\n".join(t for t in texts if t))
    return message.model_copy(update={"blocks": [*kept, answer]})
