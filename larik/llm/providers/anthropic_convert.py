"""Neutral model <-> Anthropic Messages API wire format. Imports no SDK.

Request side: :func:`build_params` turns a :class:`~larik.llm.types.Request` into the keyword
arguments of ``client.messages.stream(...)`` (plain dicts, sent as-is by the SDK).
Response side: :func:`to_message` turns the SDK's accumulated message into a neutral
``Message``, :func:`to_usage` and :func:`to_stop_reason` do the rest.

The model policy (which Claude models take adaptive thinking, which a fixed budget, default
``max_tokens``) lives here too; docs/providers/anthropic.md describes it for users.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal

from .. import jsontext
from ..others_parse import json_value
from ..replay import messages_for
from ..types import Block, Effort, Message, Request, StopReason, Usage
from .common import tool_arguments

__all__ = [
    "BUDGETS",
    "ThinkingPlan",
    "build_params",
    "compact_json",
    "default_max_tokens",
    "plan_thinking",
    "thinking_style",
    "to_message",
    "to_stop_reason",
    "to_usage",
]

ThinkingStyle = Literal["adaptive", "budget", "none"]

# Fixed thinking budgets (tokens) for models without adaptive thinking.
BUDGETS: dict[str, int] = {
    Effort.LOW: 2048,
    Effort.MEDIUM: 8192,
    Effort.HIGH: 16384,
    Effort.MAX: 32000,
}
DEFAULT_BUDGET_EFFORT = Effort.MEDIUM  # thinking forced on (thinking=True) with effort ""
REPLY_ROOM = 4096  # tokens kept for the visible reply when a budget is clamped to a model's cap

_CACHE = {"type": "ephemeral"}
_OLD_NAME = re.compile(r"claude-(\d+)(?:-(\d))?-(?:opus|sonnet|haiku)")  # claude-3-7-sonnet-…
_NEW_NAME = re.compile(r"claude-([a-z]+)-(\d+)(?:[-.](\d{1,2})(?!\d))?")  # claude-sonnet-4-5-…
_NOT_CACHEABLE = frozenset({"thinking", "redacted_thinking"})

_STOP = {
    "end_turn": StopReason.END_TURN,
    "tool_use": StopReason.TOOL_USE,
    "max_tokens": StopReason.MAX_TOKENS,
    "model_context_window_exceeded": StopReason.MAX_TOKENS,
    "stop_sequence": StopReason.STOP_SEQUENCE,
    "refusal": StopReason.REFUSAL,
    "pause_turn": StopReason.PAUSE_TURN,
}


def compact_json(value: Any) -> str:
    """JSON text the way the SDK serialises a request body (so raw blocks go back verbatim)."""
    return jsontext.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- model policy ----------------------------------------------------------------------------


def _claude_version(model: str) -> tuple[int, int] | None:
    m = model.lower()
    old = _OLD_NAME.search(m)
    if old:
        return int(old[1]), int(old[2] or 0)
    new = _NEW_NAME.search(m)
    if new:
        return int(new[2]), int(new[3] or 0)
    return None


def thinking_style(model: str) -> ThinkingStyle:
    """How a model takes thinking: ``adaptive`` (Claude 4.6 and later, and unversioned new
    Claude families), ``budget`` (Claude 3.7 to 4.5, and non-Claude models behind an
    Anthropic-compatible endpoint), ``none`` (Claude 3.5 and older)."""
    version = _claude_version(model)
    if version is None:
        return "adaptive" if "claude" in model.lower() else "budget"
    if version >= (4, 6):
        return "adaptive"
    if version >= (3, 7):
        return "budget"
    return "none"


def default_max_tokens(model: str) -> int:
    """``max_tokens`` sent when the request leaves it 0."""
    version = _claude_version(model)
    if version is None:
        return 32000 if "claude" in model.lower() else 8192
    if version < (3, 5):
        return 4096
    if version < (3, 7):
        return 8192
    return 32000


def _output_cap(model: str) -> int | None:
    """The model's largest ``max_tokens``, where a thinking budget could push past it."""
    new = _NEW_NAME.search(model.lower())
    if new and new[1] == "opus" and (int(new[2]), int(new[3] or 0)) in ((4, 0), (4, 1)):
        return 32000
    version = _claude_version(model)
    if version is not None and (3, 7) <= version < (4, 6):
        return 64000
    return None


@dataclass(frozen=True, slots=True)
class ThinkingPlan:
    """What goes into the request for reasoning: ``thinking``, ``output_config`` and the
    final ``max_tokens``. ``on`` says thinking was requested (for the 400 hint)."""

    max_tokens: int
    thinking: dict[str, Any] | None = None
    output_config: dict[str, Any] | None = None

    @property
    def on(self) -> bool:
        return self.thinking is not None and self.thinking.get("type") != "disabled"


def plan_thinking(model: str, effort: str, max_tokens: int, thinking: bool | None) -> ThinkingPlan:
    """Map ``Request.effort`` (and the provider's ``thinking`` switch) for ``model``.

    * ``thinking=False``: no thinking and no effort sent, whatever the effort.
    * effort ``""`` and ``thinking=None``: the provider default (nothing sent).
    * adaptive models: ``thinking={"type": "adaptive"}`` plus ``output_config.effort``.
    * budget models: ``thinking={"type": "enabled", "budget_tokens": BUDGETS[effort]}``;
      ``max_tokens`` grows past the budget (budget + requested room), capped per model.
    * ``none`` models: nothing, unless ``thinking=True`` forces a budget.
    """
    asked = max_tokens if max_tokens > 0 else default_max_tokens(model)
    if thinking is False or (not effort and thinking is None):
        return ThinkingPlan(asked)
    style = thinking_style(model)
    if style == "none" and thinking is not True:
        return ThinkingPlan(asked)
    if style == "adaptive":
        config = {"effort": effort} if effort else None
        return ThinkingPlan(asked, {"type": "adaptive"}, config)
    budget = BUDGETS[effort or DEFAULT_BUDGET_EFFORT]
    total = asked if asked > budget else budget + asked
    cap = _output_cap(model)
    if cap is not None and total > cap:
        total = cap
        budget = min(budget, cap - REPLY_ROOM)
    return ThinkingPlan(total, {"type": "enabled", "budget_tokens": budget})


# -- request ---------------------------------------------------------------------------------


def _image(block: Block) -> dict[str, Any]:
    return {
        "type": "image",
        "source": {"type": "base64", "media_type": block.media_type, "data": block.data},
    }


def _tool_result(block: Block) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "tool_result", "tool_use_id": block.id}
    if block.images:
        content: list[dict[str, Any]] = []
        if block.content:
            content.append({"type": "text", "text": block.content})
        content.extend(_image(img) for img in block.images)
        out["content"] = content
    else:
        out["content"] = block.content
    if block.is_error:
        out["is_error"] = True
    return out


def _content_block(block: Block) -> dict[str, Any] | None:
    t = block.type
    if t == "text":
        return {"type": "text", "text": block.text} if block.text else None
    if t == "image":
        return _image(block)
    if t == "tool_use":
        return {
            "type": "tool_use",
            "id": block.id,
            "name": block.name,
            "input": tool_arguments(block.input),
        }
    if t == "tool_result":
        return _tool_result(block)
    if t == "thinking":
        if block.redacted:
            return {"type": "redacted_thinking", "data": block.text}
        if not block.signature:  # the API rejects unsigned thinking (e.g. an interrupted turn)
            return None
        return {"type": "thinking", "thinking": block.text, "signature": block.signature}
    if t == "opaque":
        try:
            return json_value(block.raw)
        except ValueError:
            return None
    return None


def _messages(request: Request, provider: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages_for(request, provider):
        content = []
        for block in message.blocks:
            converted = _content_block(block)
            if converted is not None:
                content.append(converted)
        if content:
            out.append({"role": message.role, "content": content})
    return out


def _mark_latest_turn(messages: list[dict[str, Any]]) -> None:
    """Cache breakpoint on the last cacheable block of the last message."""
    if not messages:
        return
    content = messages[-1]["content"]
    for i in range(len(content) - 1, -1, -1):
        block = content[i]
        if block.get("type") in _NOT_CACHEABLE:
            continue
        content[i] = {**block, "cache_control": dict(_CACHE)}
        return


def build_params(
    request: Request, provider: str, *, thinking: bool | None, prompt_cache: bool
) -> tuple[dict[str, Any], ThinkingPlan]:
    """The keyword arguments for ``client.messages.stream`` and the thinking plan used."""
    plan = plan_thinking(request.model, request.effort, request.max_tokens, thinking)
    params: dict[str, Any] = {
        "model": request.model,
        "max_tokens": plan.max_tokens,
        "messages": _messages(request, provider),
    }
    system: list[dict[str, Any]] = [{"type": "text", "text": s} for s in request.system if s]
    if system:
        if prompt_cache:
            system[-1]["cache_control"] = dict(_CACHE)
        params["system"] = system
    if request.tools:
        params["tools"] = [_tool(t.name, t.description, t.input_schema) for t in request.tools]
    if plan.thinking is not None:
        params["thinking"] = plan.thinking
    if plan.output_config is not None:
        params["output_config"] = plan.output_config
    if prompt_cache:
        _mark_latest_turn(params["messages"])
    return params, plan


def _tool(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": name}
    if description:
        tool["description"] = description
    tool["input_schema"] = schema
    return tool


# -- response --------------------------------------------------------------------------------


def _as_dict(block: Any) -> dict[str, Any]:
    return block if isinstance(block, dict) else block.to_dict()


def to_message(
    snapshot: Any, model: str, provider: str, tool_args: dict[int, list[str]]
) -> Message:
    """The SDK's accumulated message as a neutral one. ``tool_args`` holds, per content index,
    the argument JSON text exactly as streamed (the SDK keeps only the parsed object)."""
    blocks: list[Block] = []
    for index, cb in enumerate(snapshot.content):
        t = cb.get("type") if isinstance(cb, dict) else cb.type
        if t == "text":
            if cb.text:
                blocks.append(Block(type="text", text=cb.text))
        elif t == "thinking":
            blocks.append(
                Block(type="thinking", text=cb.thinking, signature=cb.signature, provider=provider)
            )
        elif t == "redacted_thinking":
            blocks.append(Block(type="thinking", text=cb.data, redacted=True, provider=provider))
        elif t == "tool_use":
            pieces = tool_args.get(index)
            text = "".join(pieces) if pieces else ""
            blocks.append(
                Block(type="tool_use", id=cb.id, name=cb.name, input=text or compact_json(cb.input))
            )
        else:
            blocks.append(Block(type="opaque", provider=provider, raw=compact_json(_as_dict(cb))))
    return Message(role="assistant", blocks=blocks, model=model)


def to_usage(usage: Any) -> Usage:
    return Usage(
        input=usage.input_tokens or 0,
        output=usage.output_tokens or 0,
        cache_read=usage.cache_read_input_tokens or 0,
        cache_write=usage.cache_creation_input_tokens or 0,
    )


def to_stop_reason(value: str | None) -> StopReason:
    return _STOP.get(value or "end_turn", StopReason.END_TURN)
