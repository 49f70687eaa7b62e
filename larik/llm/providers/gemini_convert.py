"""Gemini wire mapping: neutral ``Request`` -> google-genai types, streamed chunks -> ``Message``.

Imported only by :mod:`larik.llm.providers.gemini` once a request is made, so importing the
SDK's ``types`` module here at the top is lazy from Larik's point of view.

Rules (docs/providers/gemini.md):

* Thought signatures are bytes on text and function-call parts. They are kept as base64 text
  in ``Block.signature`` of the text / tool_use block they rode on and sent back only when the
  message was produced by the *same model* (text and tool calls are portable, their signatures
  are not). Parallel calls: only the first function call carries one; we keep what the wire had.
* Thought summaries (``thought=True`` parts) become thinking blocks with provider
  ``gemini-display``: shown, stored, never sent back.
* The SDK has no accumulator for streamed chunks, so :class:`Assembler` builds the final
  message from the SDK's typed parts (not from the display deltas it hands out).
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid

from google.genai import types

from .. import jsontext
from ..errors import APIError
from ..replay import messages_for
from ..schema import gemini_schema
from ..types import Block, Effort, Message, Request, StopReason, StreamEvent, Usage
from .common import tool_arguments

__all__ = [
    "DISPLAY_PROVIDER",
    "GENERATED_ID_PREFIX",
    "Assembler",
    "build_config",
    "build_contents",
    "thinking_config",
]

DISPLAY_PROVIDER = "gemini-display"
GENERATED_ID_PREFIX = "gcall_"  # ids Larik made up for calls the API sent without one

# Effort -> thinking budget for Gemini 2.5 (tokens). 2.5 Pro accepts up to 32768, the Flash
# models up to 24576, so "max" is capped per model.
BUDGETS: dict[str, int] = {
    Effort.LOW: 1024,
    Effort.MEDIUM: 8192,
    Effort.HIGH: 24576,
    Effort.MAX: 32768,
}
FLASH_MAX_BUDGET = 24576
MAX_OUTPUT_TOKENS = 65536  # the output limit of every Gemini 2.5 model

_REFUSALS = {
    "SAFETY",
    "RECITATION",
    "PROHIBITED_CONTENT",
    "BLOCKLIST",
    "SPII",
    "LANGUAGE",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",
    "MODEL_ARMOR",
}
_ERRORS = {
    "MALFORMED_FUNCTION_CALL",
    "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS",
    "MISSING_THOUGHT_SIGNATURE",
    "MALFORMED_RESPONSE",
    "OTHER",
}
_VERSION = re.compile(r"gemini-(\d+)(?:\.(\d+))?")
_PRO = re.compile(r"-pro\b")


# -- request -------------------------------------------------------------------------------


def _family(model: str) -> str:
    """'level' for Gemini 3 and later, 'budget' for Gemini 2.5, '' for models without thinking
    controls we know of (older Gemini, Gemma, aliases such as gemini-flash-latest)."""
    m = _VERSION.search(model.lower())
    if not m:
        return ""
    major, minor = int(m.group(1)), int(m.group(2) or 0)
    if major >= 3:
        return "level"
    if (major, minor) >= (2, 5):
        return "budget"
    return ""


def thinking_config(
    model: str, effort: str, thinking: bool | None = None
) -> types.ThinkingConfig | None:
    """Thought summaries always on for thinking models; level/budget only when effort is set.

    ``thinking`` (the provider option): None follows the model name, False sends nothing,
    True treats a model Larik does not know as a Gemini 3 one (thinking level).
    """
    if thinking is False:
        return None
    family = _family(model) or ("level" if thinking else "")
    if not family:
        return None
    cfg = types.ThinkingConfig(include_thoughts=True)
    if not effort:
        return cfg
    name = model.lower()
    if family == "level":
        if effort == "low":
            cfg.thinking_level = types.ThinkingLevel.LOW
        elif effort == "medium" and "flash" in name:
            cfg.thinking_level = types.ThinkingLevel.MEDIUM
        else:  # medium on Pro (which takes only low/high), high, max
            cfg.thinking_level = types.ThinkingLevel.HIGH
    else:
        budget = BUDGETS[effort]
        if not _PRO.search(name):
            budget = min(budget, FLASH_MAX_BUDGET)
        cfg.thinking_budget = budget
    return cfg


def build_config(request: Request, thinking: bool | None = None) -> types.GenerateContentConfig:
    cfg = types.GenerateContentConfig(
        # Tools are declarations, never Python callables: keep the SDK's automatic
        # function calling out of the way (it is SDK-side only and sends nothing).
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    if request.system:
        cfg.system_instruction = types.Content(
            parts=[types.Part(text=s) for s in request.system if s]
        )
    if request.tools:
        cfg.tools = [
            types.Tool(
                function_declarations=[
                    types.FunctionDeclaration(
                        name=t.name,
                        description=t.description,
                        parameters_json_schema=gemini_schema(t.input_schema),
                    )
                    for t in request.tools
                ]
            )
        ]
    cfg.thinking_config = thinking_config(request.model, request.effort, thinking)
    if request.max_tokens:
        cfg.max_output_tokens = request.max_tokens
        # Thinking tokens count against maxOutputTokens: keep the room the request asked for.
        budget = cfg.thinking_config.thinking_budget if cfg.thinking_config else None
        if budget and request.max_tokens <= budget:
            cfg.max_output_tokens = min(request.max_tokens + budget, MAX_OUTPUT_TOKENS)
    return cfg


def _b64(data: str, what: str, provider: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise APIError(
            0, f"{what} is not valid base64", retryable=False, provider=provider
        ) from None


def _inline(block: Block, provider: str) -> types.Part:
    return types.Part(
        inline_data=types.Blob(
            mime_type=block.media_type, data=_b64(block.data, "image data", provider)
        )
    )


def _signature(text: str) -> bytes | None:
    """A stored signature back to bytes (either base64 alphabet); None if it is not base64."""
    try:
        return base64.b64decode(text.replace("-", "+").replace("_", "/"), validate=True)
    except (binascii.Error, ValueError):
        return None


def _model_parts(blocks: list[Block], same_model: bool, provider: str) -> list[types.Part]:
    parts: list[types.Part] = []
    for b in blocks:
        sig = _signature(b.signature) if same_model and b.signature else None
        if b.type == "text":
            if b.text or sig:  # Gemini rejects empty text parts; a signed one is the model's own
                parts.append(types.Part(text=b.text, thought_signature=sig))
        elif b.type == "tool_use":
            call = types.FunctionCall(name=b.name, args=tool_arguments(b.input))
            if not b.id.startswith(GENERATED_ID_PREFIX):
                call.id = b.id
            parts.append(types.Part(function_call=call, thought_signature=sig))
        elif b.type == "image":
            parts.append(_inline(b, provider))
        # thinking: summaries are display-only, never input; opaque: Gemini makes none.
    return parts


def _user_parts(blocks: list[Block], names: dict[str, str], provider: str) -> list[types.Part]:
    parts: list[types.Part] = []
    for b in blocks:
        if b.type == "text":
            if b.text:  # Gemini rejects empty text parts
                parts.append(types.Part(text=b.text))
        elif b.type == "image":
            parts.append(_inline(b, provider))
        elif b.type == "tool_result":
            response = {"error": b.content} if b.is_error else {"output": b.content}
            fr = types.FunctionResponse(name=names.get(b.id, b.id), response=response)
            if not b.id.startswith(GENERATED_ID_PREFIX):
                fr.id = b.id
            parts.append(types.Part(function_response=fr))
            # Images a tool returned go right after its function response.
            parts.extend(_inline(img, provider) for img in b.images)
    return parts


def build_contents(request: Request, provider: str) -> list[types.Content]:
    """One Content per turn; consecutive messages of one role are merged into one turn."""
    contents: list[types.Content] = []
    names: dict[str, str] = {}  # tool call id -> function name, for function responses
    for m in messages_for(request, provider):
        blocks = m.blocks
        if m.role == "assistant":
            names.update((b.id, b.name) for b in blocks if b.type == "tool_use")
            same_model = m.model == request.model
            role, parts = "model", _model_parts(blocks, same_model, provider)
        else:
            role, parts = "user", _user_parts(blocks, names, provider)
        if not parts:
            continue
        if contents and contents[-1].role == role:
            contents[-1].parts.extend(parts)  # type: ignore[union-attr]
        else:
            contents.append(types.Content(role=role, parts=parts))
    return contents


# -- response ------------------------------------------------------------------------------


def _sig(raw: bytes | None) -> str:
    return base64.b64encode(raw).decode("ascii") if raw else ""


class Assembler:
    """Builds the final message from the SDK's typed chunks and hands out display deltas.

    Adjacent text parts join into one text block; a part carrying a thought signature puts it
    on the block it joined and closes that block, so each signature stays with the text that
    preceded it. Adjacent thought parts join into one ``gemini-display`` thinking block. Each
    function call is its own tool_use block (with its signature when it has one).
    """

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.blocks: list[Block] = []
        self._pieces: list[str] = []  # text of the open text/thinking block, joined on close
        self._open: Block | None = None
        self._calls = 0
        self.finish: types.FinishReason | None = None
        self.blocked = False
        self.usage: types.GenerateContentResponseUsageMetadata | None = None
        self.response_id = ""

    def feed(self, chunk: types.GenerateContentResponse) -> list[StreamEvent]:
        if chunk.usage_metadata is not None:
            self.usage = chunk.usage_metadata
        if chunk.response_id and not self.response_id:
            self.response_id = chunk.response_id
        if chunk.prompt_feedback is not None and chunk.prompt_feedback.block_reason:
            self.blocked = True
        if not chunk.candidates:
            return []
        cand = chunk.candidates[0]
        if cand.finish_reason:
            self.finish = cand.finish_reason
        if cand.content is None or not cand.content.parts:
            return []
        events: list[StreamEvent] = []
        for part in cand.content.parts:
            self._part(part, events)
        return events

    def _part(self, part: types.Part, events: list[StreamEvent]) -> None:
        sig = part.thought_signature
        if part.function_call is not None:
            self._close()
            fc = part.function_call
            call_id = fc.id or self._new_id()
            name = fc.name or ""
            args = jsontext.dumps(fc.args or {}, ensure_ascii=False)
            block = Block.tool_use(call_id, name, args)
            block.signature = _sig(sig)
            self.blocks.append(block)
            events.append(StreamEvent.tool_use_start(name, call_id))
            return
        if not part.text:
            if sig:  # a signature on an empty (or non-text) part: it closes the open block
                self._sign(sig, thought=bool(part.thought))
            return
        kind = "thinking" if part.thought else "text"
        if self._open is None or self._open.type != kind:
            self._close()
            self._open = (
                Block.thinking_block("", provider=DISPLAY_PROVIDER)
                if kind == "thinking"
                else Block.text_block("")
            )
        self._pieces.append(part.text)
        events.append(
            StreamEvent.thinking_delta(part.text)
            if kind == "thinking"
            else StreamEvent.text_delta(part.text)
        )
        if sig:
            self._open.signature = _sig(sig)
            self._close()

    def _sign(self, sig: bytes, thought: bool) -> None:
        if self._open is None:
            self._open = (
                Block.thinking_block("", provider=DISPLAY_PROVIDER)
                if thought
                else Block.text_block("")
            )
        self._open.signature = _sig(sig)
        self._close()

    def _close(self) -> None:
        if self._open is not None:
            self._open.text = "".join(self._pieces)
            self.blocks.append(self._open)
            self._open = None
            self._pieces = []

    def _new_id(self) -> str:
        self._calls += 1
        base = self.response_id or uuid.uuid4().hex[:16]
        return f"{GENERATED_ID_PREFIX}{base}_{self._calls}"

    # -- the end ---------------------------------------------------------------------------
    def done(self, model: str) -> StreamEvent:
        self._close()
        message = Message(role="assistant", blocks=self.blocks, model=model)
        return StreamEvent.done(message, self._usage(), self._stop(message))

    def _stop(self, message: Message) -> StopReason:
        reason = self.finish.value if self.finish is not None else ""
        if not reason:  # the prompt blocked as a whole (a stream with neither is cut: stream_end)
            return StopReason.REFUSAL
        if reason == "MAX_TOKENS":
            return StopReason.MAX_TOKENS
        if reason in _REFUSALS:
            return StopReason.REFUSAL
        if reason in _ERRORS:
            return StopReason.ERROR
        return StopReason.TOOL_USE if message.tool_uses() else StopReason.END_TURN

    def _usage(self) -> Usage:
        u = self.usage
        if u is None:
            return Usage()
        cached = u.cached_content_token_count or 0
        prompt = (u.prompt_token_count or 0) + (u.tool_use_prompt_token_count or 0)
        return Usage(
            input=max(prompt - cached, 0),
            output=(u.candidates_token_count or 0) + (u.thoughts_token_count or 0),
            cache_read=cached,
        )
