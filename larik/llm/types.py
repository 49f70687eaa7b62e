"""The neutral conversation model: the one place the conversation shape is defined.

It is also the on-disk format: a transcript line is ``Message.model_dump_json()``, and loading
and dumping it again is byte-identical for every block kind (tests/llm/test_types_golden.py).

Rules that keep that true:

* ``Block`` is one flat model with optional fields, so a message round-trips with no custom codec.
* ``Block.input`` (tool arguments) and ``Block.raw`` (vendor JSON) are kept as the *text* the
  model or vendor produced, never re-encoded; ``signature`` is never altered.
* Dumps leave out fields that hold their default, so lines stay short and stable.

Only two roles exist: tool results are ``tool_result`` blocks inside a user message.
``StreamEvent`` is not stored; it is a slotted dataclass because adapters make one per delta.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from . import jsontext
from .effort import Effort
from .encodable import encodable as shown
from .others_parse import json_value

__all__ = [
    "Block",
    "BlockType",
    "Effort",
    "EventType",
    "Message",
    "Request",
    "Role",
    "StopReason",
    "StreamEvent",
    "ToolSpec",
    "Usage",
]

Role = Literal["user", "assistant"]
BlockType = Literal["text", "thinking", "tool_use", "tool_result", "image", "opaque"]


class _Model(BaseModel):
    """Base for stored models: dumps skip defaults unless asked otherwise."""

    model_config = ConfigDict(extra="ignore", validate_assignment=False)

    def model_dump_json(self, *, exclude_defaults: bool = True, **kwargs: Any) -> str:  # type: ignore[override]
        return super().model_dump_json(exclude_defaults=exclude_defaults, **kwargs)

    def model_dump(self, *, exclude_defaults: bool = True, **kwargs: Any) -> dict[str, Any]:  # type: ignore[override]
        return super().model_dump(exclude_defaults=exclude_defaults, **kwargs)


class Block(_Model):
    """One content block. Which fields are meaningful depends on ``type``:

    text: text · thinking: text, signature, redacted (text then holds the redacted data)
    tool_use: id, name, input (raw JSON text) · tool_result: id, content, is_error, images
    image: media_type, data (base64) · opaque: provider, raw (vendor JSON text, verbatim)
    ``provider`` on thinking/opaque blocks names who produced them (for replay rules).
    """

    type: BlockType
    text: str = ""
    signature: str = ""
    redacted: bool = False
    id: str = ""
    name: str = ""
    input: str = ""
    content: str = ""
    is_error: bool = False
    images: list[Block] = Field(default_factory=list)
    media_type: str = ""
    data: str = ""
    provider: str = ""
    raw: str = ""

    @field_validator("text", "name", "input", "content", "raw", mode="after")
    @classmethod
    def _encodable(cls, v: str) -> str:
        # a lone surrogate (a model's JSON-escaped ``\udcff``, an undecodable file name) as
        # its escape: every block can be sent, written to a transcript and shown
        return shown(v)

    # -- constructors -------------------------------------------------------------------------
    @classmethod
    def text_block(cls, text: str) -> Block:
        return cls(type="text", text=text)

    @classmethod
    def thinking_block(
        cls, text: str, signature: str = "", provider: str = "", redacted: bool = False
    ) -> Block:
        return cls(
            type="thinking", text=text, signature=signature, provider=provider, redacted=redacted
        )

    @classmethod
    def tool_use(cls, id: str, name: str, input: str | dict[str, Any]) -> Block:
        return cls(type="tool_use", id=id, name=name, input=_arguments(input))

    @classmethod
    def tool_result(
        cls, id: str, content: str, is_error: bool = False, images: list[Block] | None = None
    ) -> Block:
        return cls(
            type="tool_result", id=id, content=content, is_error=is_error, images=images or []
        )

    @classmethod
    def image(cls, media_type: str, data: str) -> Block:
        return cls(type="image", media_type=media_type, data=data)

    @classmethod
    def opaque(cls, provider: str, raw: str | dict[str, Any]) -> Block:
        text = raw if isinstance(raw, str) else jsontext.dumps(raw, ensure_ascii=False)
        return cls(type="opaque", provider=provider, raw=text)

    def input_dict(self) -> dict[str, Any]:
        """The tool arguments parsed; ``{}`` for empty input. Raises ValueError if not an object."""
        if not self.input.strip():
            return {}
        value = json_value(self.input)
        if not isinstance(value, dict):
            raise ValueError("tool arguments are not a JSON object")
        return value


def _arguments(value: str | dict[str, Any]) -> str:
    """A call's arguments as the JSON text a transcript keeps; arguments that have none (a
    NaN a provider's parser let through) become a text :meth:`Block.input_dict` refuses, so
    the call is answered with an error the model sees."""
    if isinstance(value, str):
        return value
    try:
        return jsontext.dumps(value, ensure_ascii=False)
    except jsontext.NotJson as e:
        return f"(arguments that are no JSON: {e})"


class Message(_Model):
    """One conversation turn. ``model`` is the model that produced an assistant message."""

    role: Role
    blocks: list[Block] = Field(default_factory=list)
    model: str = ""
    interrupted: bool = False

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(role="user", blocks=[Block.text_block(text)])

    def text(self) -> str:
        """All text blocks joined: what a reader would call the reply."""
        return "".join(b.text for b in self.blocks if b.type == "text")

    def tool_uses(self) -> list[Block]:
        return [b for b in self.blocks if b.type == "tool_use"]


class ToolSpec(_Model):
    """A tool the model may call; ``input_schema`` is a JSON Schema object."""

    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=lambda: {"type": "object"})


class Request(_Model):
    """Everything one model call needs. No client, key or timeout: a plain value.

    ``system`` is a list of blocks: the stable prefix first, per-session context after, so
    adapters that cache (Anthropic) put the breakpoint on the last one; others join them.
    ``max_tokens`` 0 means the adapter's default for the model.
    """

    model: str
    system: list[str] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    max_tokens: int = 0
    effort: Effort = Effort.DEFAULT
    temperature: float | None = None  # None: the provider's (or its options') default
    top_p: float | None = None  # the same
    repeat_penalty: float | None = None  # the same; sent only to local servers
    constrain_tools: bool | None = None
    """Ask a server that can for grammar-constrained tool calls (providers/constrained.py);
    None: the provider's own default."""
    initiator: Literal["", "user", "agent"] = ""
    """Who asked for this call: "agent" for a subagent's or a compaction's, "" to tell from
    the messages (the user's own prompt last: "user"). A plan that bills by it (Copilot's
    ``X-Initiator``) reads it."""

    @field_validator("system", mode="before")
    @classmethod
    def _system_as_list(cls, v: Any) -> Any:
        if isinstance(v, str):
            return [v] if v else []
        return v

    def system_text(self) -> str:
        return "\n\n".join(s for s in self.system if s)


class Usage(_Model):
    """Tokens in four tiers. ``input`` is the *uncached* input."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input=self.input + other.input,
            output=self.output + other.output,
            cache_read=self.cache_read + other.cache_read,
            cache_write=self.cache_write + other.cache_write,
        )

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_write

    @property
    def context(self) -> int:
        """Tokens of prompt the model saw (uncached + cached)."""
        return self.input + self.cache_read + self.cache_write


class StopReason(StrEnum):
    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    STOP_SEQUENCE = "stop_sequence"
    REFUSAL = "refusal"
    PAUSE_TURN = "pause_turn"
    ERROR = "error"
    INTERRUPTED = "interrupted"
    MAX_TURNS = "max_turns"  # the agent's turn limit, never a provider's
    STUCK = "stuck"  # the agent stopped a model going round in circles, never a provider's
    BUDGET = "budget"  # the next request would cross the spending budget, never a provider's


class EventType(StrEnum):
    TEXT_DELTA = "text_delta"
    THINKING_DELTA = "thinking_delta"
    TOOL_USE_START = "tool_use_start"
    TOOL_INPUT_DELTA = "tool_input_delta"
    NOTICE = "notice"
    DONE = "done"


@dataclass(slots=True)
class StreamEvent:
    """One event from ``Provider.stream``. Deltas are for the screen; ``done`` is the truth.

    text_delta / thinking_delta: ``text`` · tool_use_start: ``text`` is the tool name, ``id``
    its call id · tool_input_delta: ``text`` a piece of a tool call's arguments as the model
    writes them (raw JSON; ``id`` the call's when known), for watching a reply grow, never for
    running it · notice: ``text`` · done: ``message``, ``usage``, ``stop_reason``.
    """

    type: EventType
    text: str = ""
    id: str = ""
    message: Message | None = None
    usage: Usage | None = None
    stop_reason: StopReason | None = None

    def __post_init__(self) -> None:
        self.text = shown(self.text)  # what a delta shows is encodable too (Block's rule)

    @classmethod
    def text_delta(cls, text: str) -> StreamEvent:
        return cls(EventType.TEXT_DELTA, text)

    @classmethod
    def thinking_delta(cls, text: str) -> StreamEvent:
        return cls(EventType.THINKING_DELTA, text)

    @classmethod
    def tool_use_start(cls, name: str, id: str = "") -> StreamEvent:
        return cls(EventType.TOOL_USE_START, name, id)

    @classmethod
    def tool_input_delta(cls, text: str, id: str = "") -> StreamEvent:
        return cls(EventType.TOOL_INPUT_DELTA, text, id)

    @classmethod
    def notice(cls, text: str) -> StreamEvent:
        return cls(EventType.NOTICE, text)

    @classmethod
    def done(cls, message: Message, usage: Usage, stop_reason: StopReason) -> StreamEvent:
        return cls(EventType.DONE, message=message, usage=usage, stop_reason=stop_reason)
