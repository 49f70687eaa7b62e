"""Request and reply conversion for the OpenAI Responses adapter. Imports no SDK.

Request (neutral -> Responses API body):

* ``system`` blocks -> ``instructions`` (joined); tools -> ``{"type": "function", ..., "strict":
  false}`` (Larik's schemas are not written for strict mode); ``max_tokens`` ->
  ``max_output_tokens``; ``store`` is always false (nothing kept server-side).
* Reasoning models also get ``include: ["reasoning.encrypted_content"]`` and ``reasoning``
  (``effort`` from ``Effort``: low/medium/high as is, max -> ``xhigh``; "" leaves the model's
  default; ``summary`` so the reasoning can be shown). Models known to have no reasoning
  (gpt-4*, gpt-3.5*, chatgpt-*) get neither: the API rejects both there.
* User text and images -> one ``message`` item (``input_text`` / ``input_image`` with a data URL);
  ``tool_result`` -> ``function_call_output`` (its ``output`` a list with ``input_text`` and
  ``input_image`` items when the result has images, else the text).
* Assistant text -> ``message`` items; ``tool_use`` -> ``function_call`` (``arguments`` verbatim);
  an ``opaque`` block of this provider (a reasoning item, or any item the neutral model does not
  name) -> that item, verbatim. ``replay.messages_for`` already kept those for the same
  provider+model only. A reasoning item without ``encrypted_content`` (useless with
  ``store: false``) or with nothing after it in its turn (the API rejects an orphan) is left out.

Reply (the SDK's final ``Response`` -> ``Message``): ``reasoning`` items -> an ``opaque`` block
(``raw`` = the item's JSON, provider = the adapter's name) preceded by a ``thinking`` block with
the summary text for display, whose provider is ``<name>-display`` so it is never replayed (the
summary is replayed inside the opaque item only); ``message`` output text / refusal -> text blocks
(a ``phase`` marker kept in ``signature`` with ``provider`` set, resent to the same model only);
``function_call`` -> ``tool_use`` with the arguments exactly as produced; anything else -> opaque.
"""

from __future__ import annotations

from typing import Any

from .. import jsontext
from ..others_parse import json_value
from ..replay import messages_for
from ..types import Block, Effort, Message, Request, StopReason, ToolSpec, Usage

__all__ = [
    "EFFORT",
    "build_input",
    "build_params",
    "display_provider",
    "is_reasoning_model",
    "message_from_response",
    "stop_reason",
    "usage_from_response",
]

EFFORT: dict[str, str] = {
    Effort.LOW: "low",
    Effort.MEDIUM: "medium",
    Effort.HIGH: "high",
    Effort.MAX: "xhigh",
}
INCLUDE_ENCRYPTED = "reasoning.encrypted_content"
PHASES = frozenset({"commentary", "final_answer"})
_PLAIN_PREFIXES = ("gpt-4", "gpt-3.5", "gpt-35", "chatgpt-")


def display_provider(provider: str) -> str:
    """The provider stamped on reasoning-summary thinking blocks: shown, never replayed."""
    return f"{provider}-display"


def is_reasoning_model(model: str) -> bool:
    """False for model families known to reject reasoning parameters; True otherwise."""
    m = model.lower().rsplit("/", 1)[-1].removeprefix("ft:")
    return not m.startswith(_PLAIN_PREFIXES)


# -- request --------------------------------------------------------------------------------


def build_params(
    request: Request,
    provider: str,
    *,
    reasoning: bool = True,
    summary: str | None = "auto",
    effort_cap: str | None = None,
) -> dict[str, Any]:
    """Keyword arguments for ``client.responses.stream``."""
    params: dict[str, Any] = {"model": request.model, "input": build_input(request, provider)}
    instructions = request.system_text()
    if instructions:
        params["instructions"] = instructions
    if request.tools:
        params["tools"] = [tool_param(t) for t in request.tools]
    if request.max_tokens > 0:
        params["max_output_tokens"] = request.max_tokens
    if reasoning:
        params["include"] = [INCLUDE_ENCRYPTED]
        config: dict[str, str] = {}
        if request.effort:
            effort = EFFORT[request.effort]
            config["effort"] = effort_cap if effort_cap and effort == "xhigh" else effort
        if summary:
            config["summary"] = summary
        if config:
            params["reasoning"] = config
    params["store"] = False
    return params


def tool_param(tool: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.input_schema,
        "strict": False,
    }


def build_input(request: Request, provider: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    for message in messages_for(request, provider):
        blocks = message.blocks
        if message.role == "assistant":
            own = message.model == request.model
            items.extend(_assistant_items(blocks, provider if own else None))
        else:
            items.extend(_user_items(blocks))
    return items


def _user_items(blocks: list[Block]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    parts: list[dict[str, Any]] = []
    for b in blocks:
        if b.type == "text":
            if b.text:
                parts.append({"type": "input_text", "text": b.text})
        elif b.type == "image":
            parts.append(_image(b))
        elif b.type == "tool_result":
            if parts:
                items.append({"type": "message", "role": "user", "content": parts})
                parts = []
            items.append(_tool_output(b))
    if parts:
        items.append({"type": "message", "role": "user", "content": parts})
    return items


def _tool_output(b: Block) -> dict[str, Any]:
    output: str | list[dict[str, Any]] = b.content
    if b.images:
        output = [{"type": "input_text", "text": b.content}] if b.content else []
        output.extend(_image(img) for img in b.images)
    return {"type": "function_call_output", "call_id": b.id, "output": output}


def _image(b: Block) -> dict[str, Any]:
    return {
        "type": "input_image",
        "image_url": f"data:{b.media_type};base64,{b.data}",
        "detail": "auto",
    }


def _assistant_items(blocks: list[Block], own_provider: str | None) -> list[dict[str, Any]]:
    """``own_provider`` is set when the message came from the target model: phases are resent."""
    items: list[dict[str, Any]] = []
    for b in blocks:
        if b.type == "text":
            if not b.text:
                continue
            item: dict[str, Any] = {"type": "message", "role": "assistant", "content": b.text}
            if own_provider and b.provider == own_provider and b.signature in PHASES:
                item["phase"] = b.signature
            items.append(item)
        elif b.type == "tool_use":
            items.append(
                {
                    "type": "function_call",
                    "call_id": b.id,
                    "name": b.name,
                    "arguments": b.input or "{}",
                }
            )
        elif b.type == "opaque":
            raw = _replay_item(b.raw)
            if raw is not None:
                items.append(raw)
    while items and items[-1].get("type") == "reasoning":
        items.pop()  # an orphan reasoning item: the API rejects it without its following item
    return items


def _replay_item(raw: str) -> dict[str, Any] | None:
    try:
        item = json_value(raw)
    except ValueError:
        return None
    if not isinstance(item, dict) or "type" not in item:
        return None
    if item["type"] == "reasoning" and not item.get("encrypted_content"):
        return None
    return item


# -- reply ----------------------------------------------------------------------------------


def message_from_response(response: Any, provider: str, model: str) -> Message:
    """The assistant message from the SDK's final ``Response`` (completed or incomplete)."""
    blocks: list[Block] = []
    for item in response.output or []:
        kind = item.type
        if kind == "message":
            phase = getattr(item, "phase", None)
            for part in item.content or []:
                text = part.text if part.type == "output_text" else getattr(part, "refusal", "")
                if not text:
                    continue
                if phase:
                    blocks.append(Block(type="text", text=text, provider=provider, signature=phase))
                else:
                    blocks.append(Block.text_block(text))
        elif kind == "function_call":
            blocks.append(Block.tool_use(item.call_id, item.name, item.arguments))
        elif kind == "reasoning":
            shown = _reasoning_text(item)
            if shown:
                blocks.append(Block.thinking_block(shown, provider=display_provider(provider)))
            blocks.append(Block.opaque(provider, item_json(item)))
        else:
            blocks.append(Block.opaque(provider, item_json(item)))
    return Message(role="assistant", blocks=blocks, model=model)


def item_json(item: Any) -> str:
    """An output item as JSON: every key and value the API sent, as the SDK parsed them."""
    return jsontext.dumps(item.to_dict(mode="json"), ensure_ascii=False, separators=(",", ":"))


def _reasoning_text(item: Any) -> str:
    parts = [s.text for s in item.summary or [] if s.text]
    if not parts:
        parts = [c.text for c in getattr(item, "content", None) or [] if c.text]
    return "\n\n".join(parts)


def usage_from_response(response: Any) -> Usage:
    u = response.usage
    if u is None:
        return Usage()
    details = u.input_tokens_details
    cached = (details.cached_tokens or 0) if details is not None else 0
    return Usage(
        input=max((u.input_tokens or 0) - cached, 0),
        output=u.output_tokens or 0,
        cache_read=cached,
    )


def stop_reason(response: Any, message: Message) -> StopReason:
    if response.status == "incomplete":
        details = response.incomplete_details
        reason = details.reason if details is not None else None
        return StopReason.REFUSAL if reason == "content_filter" else StopReason.MAX_TOKENS
    if any(b.type == "tool_use" for b in message.blocks):
        return StopReason.TOOL_USE
    if _refused(response):
        return StopReason.REFUSAL
    return StopReason.END_TURN


def _refused(response: Any) -> bool:
    return any(
        part.type == "refusal"
        for item in response.output or []
        if item.type == "message"
        for part in item.content or []
    )
