"""Compaction: replace the older part of a conversation with a summary written by the
``compact`` role, keeping the recent part verbatim.

The cut never separates a tool call from its result: the kept part never starts with a user
message holding tool results. The older part is rendered as plain text (no tool blocks, so any
model can summarise it, with or without tool support), long tool results and inputs shortened.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any

from ..llm.errors import APIError, ContextOverflow
from ..llm.types import EventType, Message, Request, StreamEvent
from ..words import count

if TYPE_CHECKING:
    from ..routing import Resolved

__all__ = [
    "SUMMARY_HEADER",
    "choose_cut",
    "done_text",
    "record",
    "estimate_tokens",
    "render",
    "summarise",
    "summary_message",
    "summary_request",
]

KEEP_FRACTION = 0.2  # of the window: how much recent conversation is kept verbatim
MAX_KEEP = 32_000
CHARS_PER_TOKEN = 4
MAX_RESULT = 2_000
MAX_INPUT = 1_000

SUMMARY_HEADER = "[Earlier conversation compacted. Summary of it:]"

COMPACT_SYSTEM = """You compact the history of a coding session so that another model can carry \
on with the work without it. You are not doing the work yourself."""

INSTRUCTIONS = """Summarise the conversation below for the agent that will continue it. Keep:
- every request the user made, in their words where it matters, and what is still to do;
- decisions taken and why; constraints and preferences the user stated;
- files read or changed (paths) and what changed; commands run and what they showed (failing \
tests, errors, exact messages that matter);
- the current state: what works, what is being worked on, the next step.
Leave out pleasantries and anything superseded. Write plain text with short headings."""


def estimate_tokens(messages: list[Message]) -> int:
    chars = 0
    for m in messages:
        for b in m.blocks:
            chars += len(b.text) + len(b.input) + len(b.content) + len(b.data) // 3 + 16
    return chars // CHARS_PER_TOKEN


def _splits_tool_pair(messages: list[Message], i: int) -> bool:
    return (
        i < len(messages)
        and messages[i].role == "user"
        and any(b.type == "tool_result" for b in messages[i].blocks)
    )


def choose_cut(messages: list[Message], window: int) -> int:
    """Index ``i``: messages[:i] are summarised, messages[i:] kept. 0 means nothing to compact.

    The smallest valid ``i`` whose kept part fits the keep budget; at least one message is
    summarised.
    """
    if not messages:
        return 0
    budget = min(int(window * KEEP_FRACTION), MAX_KEEP)
    for i in range(1, len(messages) + 1):
        if _splits_tool_pair(messages, i):
            continue
        if estimate_tokens(messages[i:]) <= budget:
            return i
    return len(messages)


def _cap(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[… {len(text) - limit:,} characters omitted …]\n{text[-half:]}"


def render(messages: list[Message], max_chars: int) -> str:
    parts: list[str] = []
    for m in messages:
        who = "User" if m.role == "user" else f"Assistant ({m.model})" if m.model else "Assistant"
        lines: list[str] = []
        for b in m.blocks:
            if b.type == "text" and b.text.strip():
                lines.append(b.text)
            elif b.type == "tool_use":
                lines.append(f"[called {b.name} {_cap(b.input, MAX_INPUT)}]")
            elif b.type == "tool_result":
                flag = " (error)" if b.is_error else ""
                lines.append(f"[tool result{flag}]\n{_cap(b.content, MAX_RESULT)}")
            elif b.type == "image" or b.images:
                lines.append("[image]")
        if lines:
            mark = " (interrupted)" if m.interrupted else ""
            parts.append(f"## {who}{mark}\n" + "\n".join(lines))
    text = "\n\n".join(parts)
    if len(text) <= max_chars:
        return text
    head = parts[0][: max_chars // 4] if parts else ""
    tail = text[-(max_chars - len(head) - 100) :]
    return f"{head}\n\n[… older conversation omitted …]\n\n{tail}"


def summary_request(model: str, messages: list[Message], window: int) -> Request:
    budget = max(int(window * 0.6) * CHARS_PER_TOKEN, 2_000)
    body = render(messages, budget)
    prompt = f"{INSTRUCTIONS}\n\n<conversation>\n{body}\n</conversation>"
    return Request(
        model=model, system=[COMPACT_SYSTEM], messages=[Message.user(prompt)], initiator="agent"
    )


def done_text(replaced: int, before: int, after: int) -> str:
    """The notice once a compaction is done: what it replaced and the context before and after
    (estimates: ``~``)."""
    return (
        f"compacted {count(replaced, 'earlier message')} into a summary: context "
        f"~{before:,} → ~{after:,} tokens"
    )


def record(summary: Message, kept: int, replaced: int, reason: str, model: str) -> dict[str, Any]:
    """The transcript's ``compaction`` record (``sessions.rebuild`` reads it back)."""
    return {
        "kind": "compaction",
        "message": summary.model_dump(mode="json"),
        "kept": kept,
        "replaced": replaced,
        "reason": reason,
        "model": model,
    }


def summary_message(summary: str) -> Message:
    return Message.user(f"{SUMMARY_HEADER}\n\n{summary.strip()}")


async def summarise(
    resolved: Resolved, messages: list[Message], window: int
) -> AsyncIterator[StreamEvent]:
    """Ask ``resolved`` (the compact role's model) to summarise ``messages``: its NOTICE
    events, then its DONE event, whose message has the summary's text. Text can take more
    tokens than estimated, so a ContextOverflow is asked again with half, then a quarter of
    ``window``. No summary is an APIError."""
    done = None
    for shrink in (1, 2, 4):
        request = summary_request(resolved.model, messages, window // shrink)
        try:
            async with aclosing(resolved.provider.stream(request)) as events:
                async for sev in events:
                    if sev.type is EventType.NOTICE:
                        yield sev
                    elif sev.type is EventType.DONE:
                        done = sev
            break
        except ContextOverflow:
            if shrink == 4:
                raise
    if done is None or done.message is None or not done.message.text().strip():
        raise APIError(0, "the compact model returned no summary", provider=resolved.provider_name)
    yield done
