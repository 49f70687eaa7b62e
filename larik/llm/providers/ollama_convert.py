"""Request and response conversion for the Ollama adapter (``ollama.py``): neutral messages to
``/api/chat`` messages, ``/api/show`` answers to :class:`ShowInfo`, Effort to ``think``, chunks'
tool calls to blocks, and error bodies to one-line text. Pure functions, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import jsontext
from ..others_parse import json_value
from ..replay import messages_for
from ..toolcalls import TOOL_IMAGES_NOTE, new_call_id, repair_arguments
from ..types import Block, Effort, Request
from .common import tool_arguments
from .openai_compat_convert import build_tools as tools  # Ollama takes the same shape

__all__ = [
    "ShowInfo",
    "error_text",
    "body_error",
    "messages",
    "show_info",
    "think",
    "tool_block",
    "tools",
]

_LEVELS: dict[str, str] = {
    Effort.LOW: "low",
    Effort.MEDIUM: "medium",
    Effort.HIGH: "high",
    Effort.MAX: "high",
}


@dataclass(slots=True)
class ShowInfo:
    """What ``/api/show`` says about a model (None: not reported)."""

    context_length: int | None
    capabilities: list[str] | None
    think_values: list[Any] | None


def show_info(data: dict[str, Any]) -> ShowInfo:
    """The parts of an ``/api/show`` answer Larik uses."""
    return ShowInfo(_context_length(data), _capabilities(data), _think_values(data))


def messages(request: Request, provider: str) -> list[dict[str, Any]]:
    """The request's system text and replayable messages as ``/api/chat`` messages."""
    out: list[dict[str, Any]] = []
    system = request.system_text()
    if system:
        out.append({"role": "system", "content": system})
    names: dict[str, str] = {}  # tool call id -> tool name, for tool messages
    for message in messages_for(request, provider):
        blocks = message.blocks
        if message.role == "assistant":
            out.append(_assistant(blocks, names))
        else:
            out.extend(_user(blocks, names))
    return out


def _assistant(blocks: list[Block], names: dict[str, str]) -> dict[str, Any]:
    text = [b.text for b in blocks if b.type == "text" and b.text]
    thinking = [b.text for b in blocks if b.type == "thinking" and b.text and not b.redacted]
    msg: dict[str, Any] = {"role": "assistant", "content": "\n\n".join(text)}
    if thinking:
        msg["thinking"] = "\n\n".join(thinking)
    calls = []
    for b in blocks:
        if b.type == "tool_use":
            names[b.id] = b.name
            calls.append(
                {"id": b.id, "function": {"name": b.name, "arguments": tool_arguments(b.input)}}
            )
    if calls:
        msg["tool_calls"] = calls
    return msg


def _user(blocks: list[Block], names: dict[str, str]) -> list[dict[str, Any]]:
    """Tool results first (one ``tool`` message each), then their images in a user message with
    a note, then the user's own text and images."""
    out: list[dict[str, Any]] = []
    tool_images: list[str] = []
    labels: list[str] = []
    text: list[str] = []
    images: list[str] = []
    for b in blocks:
        if b.type == "tool_result":
            content = f"Error: {b.content}" if b.is_error else b.content
            msg: dict[str, Any] = {"role": "tool", "content": content}
            if b.id in names:
                msg["tool_name"] = names[b.id]
            if b.id:
                msg["tool_call_id"] = b.id
            out.append(msg)
            if b.images:
                tool_images.extend(img.data for img in b.images)
                n = len(b.images)
                labels.append(
                    f"{names.get(b.id, 'tool')} ({b.id}): {n} image{'s' if n > 1 else ''}"
                )
        elif b.type == "text" and b.text:
            text.append(b.text)
        elif b.type == "image" and b.data:
            images.append(b.data)
    if tool_images:
        note = f"{TOOL_IMAGES_NOTE} {'; '.join(labels)}."
        out.append({"role": "user", "content": note, "images": tool_images})
    if text or images:
        msg = {"role": "user", "content": "\n\n".join(text)}
        if images:
            msg["images"] = images
        out.append(msg)
    return out


def tool_block(call: dict[str, Any]) -> Block:
    fn = call.get("function") or {}
    args = fn.get("arguments")
    if isinstance(args, str):  # some servers send the arguments as text
        raw = repair_arguments(args)
    else:
        raw = jsontext.dumps(args if args is not None else {}, ensure_ascii=False)
    call_id = call.get("id") or new_call_id()
    return Block(type="tool_use", id=call_id, name=fn.get("name") or "", input=raw)


def think(effort: str, model: str, info: ShowInfo | None) -> bool | str | None:
    """Effort -> ``think``. None means leave it out (the model's default)."""
    if not effort:
        return None
    if info is not None and info.capabilities is not None and "thinking" not in info.capabilities:
        return None
    level = _LEVELS.get(effort, "high")
    values = info.think_values if info is not None else None
    if values is not None:  # the model's advertised controls (newer Ollama)
        for choice in (effort, level, True):
            if choice in values:
                return choice
        return None
    # no level metadata: older Ollama takes levels only for gpt-oss, and `true` elsewhere
    return level if "gpt-oss" in model.lower() else True


def _context_length(data: dict[str, Any]) -> int | None:
    info = data.get("model_info")
    if not isinstance(info, dict):
        return None
    for key, value in info.items():
        if key.endswith(".context_length") and isinstance(value, int | float) and value > 0:
            return int(value)
    return None


def _capabilities(data: dict[str, Any]) -> list[str] | None:
    caps = data.get("capabilities")
    return [str(c) for c in caps] if isinstance(caps, list) else None


def _think_values(data: dict[str, Any]) -> list[Any] | None:
    thinking = data.get("thinking")
    if isinstance(thinking, dict) and isinstance(thinking.get("values"), list):
        return thinking["values"]
    return None


def error_text(err: Any) -> str:
    """Ollama's ``error`` value as text; unwraps a nested JSON error (llama-server's)."""
    if isinstance(err, dict):
        return str(err.get("message") or err.get("error") or err)
    text = str(err)
    if text.startswith("{"):
        try:
            inner = json_value(text)
        except ValueError:
            return text
        if isinstance(inner, dict):
            return error_text(inner.get("error", inner))
    return text


def body_error(raw: bytes) -> str:
    try:
        data = json_value(raw)
    except ValueError:
        text = raw.decode("utf-8", "replace").strip()
        return text if text and len(text) < 200 and "<" not in text else ""
    if isinstance(data, dict) and "error" in data:
        return error_text(data["error"])
    return ""
