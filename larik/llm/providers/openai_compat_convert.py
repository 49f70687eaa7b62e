"""Neutral model <-> Chat Completions wire format, for the openai-compatible adapter.

Request side: :func:`build_messages`, :func:`build_tools`. Tool results become ``tool`` role
messages; their images go into the user message after them, introduced by
``TOOL_IMAGES_NOTE``; consecutive user messages are merged (strict chat templates want turns
to alternate). Reasoning is replayed per the reasoning-history mode.

Response side: :class:`ThinkSplitter` splits streamed content that starts with
``<think>…</think>`` into thinking and text as it arrives (the tags may be cut anywhere across
deltas); :func:`split_think` does the same to the finished content; :func:`usage_from`,
:func:`stop_reason_from` map the final usage and finish reason.
"""

from __future__ import annotations

from typing import Any

from ..replay import messages_for
from ..toolcalls import TOOL_IMAGES_NOTE
from ..types import Block, Message, Request, StopReason, Usage
from .presets import ReasoningHistory

__all__ = [
    "ThinkSplitter",
    "build_messages",
    "build_tools",
    "assistant_message",
    "split_think",
    "stop_reason_from",
    "usage_from",
]

OPEN, CLOSE = "<think>", "</think>"


# -- request ----------------------------------------------------------------------------------


def build_tools(request: Request) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in request.tools
    ]


def build_messages(
    request: Request, provider: str, reasoning_history: ReasoningHistory
) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    system = request.system_text()
    if system:
        out.append({"role": "system", "content": system})
    for message in messages_for(request, provider):
        blocks = message.blocks
        if message.role == "assistant":
            wire = _assistant(blocks, reasoning_history)
            if wire:
                out.append(wire)
        else:
            _user(blocks, out)
    return out


def _assistant(blocks: list[Block], mode: ReasoningHistory) -> dict[str, Any] | None:
    text = "".join(b.text for b in blocks if b.type == "text")
    thinking = "".join(b.text for b in blocks if b.type == "thinking" and not b.redacted)
    calls = [
        {
            "id": b.id,
            "type": "function",
            "function": {"name": b.name, "arguments": b.input or "{}"},
        }
        for b in blocks
        if b.type == "tool_use"
    ]
    if thinking and mode == "inline":
        text = f"{OPEN}{thinking}{CLOSE}\n\n{text}" if text else f"{OPEN}{thinking}{CLOSE}"
    if not text and not calls:
        return None
    wire: dict[str, Any] = {"role": "assistant", "content": text or None}
    if thinking and mode == "field":
        wire["reasoning_content"] = thinking
    if calls:
        wire["tool_calls"] = calls
    return wire


def _user(blocks: list[Block], out: list[dict[str, Any]]) -> None:
    parts: list[dict[str, Any]] = []
    tool_images: list[dict[str, Any]] = []
    for b in blocks:
        if b.type == "tool_result":
            content = f"Error: {b.content}" if b.is_error else b.content
            out.append({"role": "tool", "tool_call_id": b.id, "content": content})
            tool_images.extend(_image_part(i) for i in b.images if i.type == "image")
        elif b.type == "text":
            parts.append({"type": "text", "text": b.text})
        elif b.type == "image":
            parts.append(_image_part(b))
    if tool_images:
        parts = [{"type": "text", "text": TOOL_IMAGES_NOTE}, *tool_images, *parts]
    if not parts:
        return
    last = out[-1] if out else None
    if last is not None and last["role"] == "user":
        last["content"] = _as_parts(last["content"]) + parts
        return
    out.append({"role": "user", "content": _compact(parts)})


def _image_part(b: Block) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": f"data:{b.media_type};base64,{b.data}"}}


def _compact(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A lone text part goes as a plain string, which every server accepts."""
    if len(parts) == 1 and parts[0]["type"] == "text":
        return parts[0]["text"]
    return parts


def _as_parts(content: str | list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


# -- response ---------------------------------------------------------------------------------


class ThinkSplitter:
    """Splits content that *starts* with ``<think>`` into thinking and text, incrementally.

    ``feed(piece)`` returns ``(thinking, text)`` to display now; ``finish()`` flushes what was
    held back (a possible partial tag). Agrees with :func:`split_think` on the whole content.
    """

    __slots__ = ("_held", "_state")

    def __init__(self) -> None:
        self._state = "start"  # start -> thinking -> after -> text, or start -> text
        self._held = ""

    def feed(self, piece: str) -> tuple[str, str]:
        state = self._state
        if state == "text":
            return "", piece
        if state == "start":
            held = self._held + piece
            lead = held.lstrip()
            if not lead or (len(lead) < len(OPEN) and OPEN.startswith(lead)):
                self._held = held
                return "", ""
            self._held = ""
            if not lead.startswith(OPEN):
                self._state = "text"
                return "", held
            self._state = "thinking"
            return self._thinking(lead[len(OPEN) :])
        if state == "thinking":
            return self._thinking(self._held + piece)
        # after: drop the whitespace between </think> and the answer
        lead = piece.lstrip()
        if lead:
            self._state = "text"
        return "", lead

    def _thinking(self, text: str) -> tuple[str, str]:
        end = text.find(CLOSE)
        if end >= 0:
            self._held = ""
            self._state = "after"
            thinking, rest = text[:end], text[end + len(CLOSE) :]
            return thinking, self.feed(rest)[1] if rest else ""
        keep = _partial_suffix(text, CLOSE)
        self._held = text[len(text) - keep :] if keep else ""
        return text[: len(text) - keep], ""

    def finish(self) -> tuple[str, str]:
        held, self._held = self._held, ""
        if self._state == "thinking":
            return held, ""
        if self._state == "start":
            return "", held
        return "", ""


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


def split_think(content: str) -> tuple[str, str]:
    """``(thinking, text)`` of a finished content string that may start with ``<think>``."""
    lead = content.lstrip()
    if not lead.startswith(OPEN):
        return "", content
    body = lead[len(OPEN) :]
    end = body.find(CLOSE)
    if end < 0:
        return body, ""
    return body[:end], body[end + len(CLOSE) :].lstrip()


def usage_from(usage: Any) -> Usage:
    """Four-tier usage from a Chat Completions ``usage`` object (None -> zeros).

    ``prompt_tokens`` includes cached tokens; ``cached_tokens`` (or DeepSeek's
    ``prompt_cache_hit_tokens``) is the cache read, ``cache_write_tokens`` (OpenRouter) the write.
    """
    if usage is None:
        return Usage()
    prompt = usage.prompt_tokens or 0
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details is not None else 0
    written = (getattr(details, "cache_write_tokens", None) or 0) if details is not None else 0
    if not cached:
        cached = getattr(usage, "prompt_cache_hit_tokens", None) or 0
    return Usage(
        input=max(prompt - cached - written, 0),
        output=usage.completion_tokens or 0,
        cache_read=cached,
        cache_write=written,
    )


_STOPS = {
    "stop": StopReason.END_TURN,
    "eos": StopReason.END_TURN,
    "tool_calls": StopReason.TOOL_USE,
    "function_call": StopReason.TOOL_USE,
    "length": StopReason.MAX_TOKENS,
    "content_filter": StopReason.REFUSAL,
    "error": StopReason.ERROR,
}


def stop_reason_from(finish_reason: str | None, has_tool_calls: bool) -> StopReason:
    """The neutral stop reason. ``length`` and ``content_filter`` always win; otherwise a reply
    with tool calls is TOOL_USE whatever the server said (several local servers report ``stop``
    there) and one without is never TOOL_USE; an unknown reason counts as END_TURN."""
    stop = _STOPS.get(finish_reason or "stop", StopReason.END_TURN)
    if stop in (StopReason.MAX_TOKENS, StopReason.REFUSAL):
        return stop
    if has_tool_calls:
        return StopReason.TOOL_USE
    return StopReason.END_TURN if stop is StopReason.TOOL_USE else stop


def assistant_message(
    model: str, thinking: str, provider: str, text: str, calls: list[Block]
) -> Message:
    """The done message: thinking first, then text, then tool calls."""
    blocks: list[Block] = []
    if thinking:
        blocks.append(Block.thinking_block(thinking, provider=provider))
    if text:
        blocks.append(Block.text_block(text))
    blocks.extend(calls)
    return Message(role="assistant", blocks=blocks, model=model)
