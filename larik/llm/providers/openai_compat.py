"""The openai-compatible adapter: Chat Completions through the official ``openai`` SDK.

One class serves every OpenAI-compatible endpoint: the hosted vendors and local servers in
:mod:`.presets` and custom endpoints. The endpoint's name picks the preset (wire details:
effort style, usage option, prober, headers); its base URL and key come from the endpoint.

Streaming: ``chat.completions.create(stream=True)``, each chunk fed to the SDK's own
accumulator (``ChatCompletionStreamState``), which keeps vendor extras such as
``reasoning_content``/``reasoning``; display deltas come from the chunk's delta. Reasoning
arrives in those fields or as ``<think>…</think>`` at the start of the content (split as it
streams). Tool calls are announced once their name is known and delivered complete in the done
message; arguments that are not valid JSON are repaired with json-repair where possible, and a
local model that wrote its call as text (Hermes, Mistral, bare JSON) has it recovered
(:mod:`larik.llm.toolcalls`). Usage comes from ``stream_options.include_usage``.

Errors are mapped in one place (:mod:`.openai_compat_errors`); ``context_window`` and
``supports_tools`` (ModelProber) ask the server (:mod:`.openai_compat_probe`), once per model;
a failed probe is None. The messages and tools on the wire are :mod:`.openai_compat_convert`'s.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncGenerator, Callable
from typing import TYPE_CHECKING, Any

from ..errors import APIError, ConfigError, CutReply
from ..options import positive_number
from ..toolcalls import new_call_id, recover_tool_calls, repair_arguments
from ..types import Block, Request, StopReason, StreamEvent
from .constrained import KINDS, MODES, NOTE, read_reply, refused, response_format, wanted
from .openai_compat_convert import (
    ThinkSplitter,
    assistant_message,
    build_messages,
    build_tools,
    split_think,
    stop_reason_from,
    usage_from,
)
from .openai_compat_errors import mapped_errors
from .openai_compat_probe import Found, listed_params, probe_server
from .presets import CUSTOM, PRESETS, Preset, ReasoningHistory
from .stream_end import watch

if TYPE_CHECKING:
    from ..endpoint import Endpoint

__all__ = ["OpenAICompatProvider"]

CONNECT_TIMEOUT = 15.0
READ_TIMEOUT = 600.0
NO_KEY = "no-key"  # sent to keyless local servers, which ignore it
WIRE = "openai-chat"  # its end: stream_end.ENDS
_MODES = ("field", "inline", "strip")
_EFFORTS = ("reasoning_effort", "openrouter", "none")
_OPTIONS = ("temperature", "top_p", "seed", "extra_body", "timeout")


class OpenAICompatProvider:
    """Chat Completions adapter. ``endpoint.name`` picks a preset (or is a custom endpoint's).

    ``reasoning_history`` overrides the preset's mode; ``preset`` replaces the one the name picks
    (the ``local`` kind's engine is llama.cpp's server). Options: ``temperature``, ``top_p``,
    ``seed``, ``extra_body`` (dict merged into the request body), ``timeout`` (read timeout,
    seconds), ``effort`` (``reasoning_effort`` | ``openrouter`` | ``none``), ``stream_usage``
    (bool), ``constrained_tools`` (``auto`` | ``always`` | ``never``: :mod:`.constrained`). Any
    other option is a ConfigError naming it.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        reasoning_history: ReasoningHistory | None = None,
        preset: Preset | None = None,
        **options: Any,
    ) -> None:
        self.endpoint = endpoint
        self.name = name = endpoint.name
        self.preset: Preset = preset or PRESETS.get(name, CUSTOM)
        if not endpoint.base_url:
            raise ConfigError(f"{name}: a custom openai-compatible provider needs a base_url")
        self.base_url = endpoint.base_url.rstrip("/")
        mode = reasoning_history or self.preset.reasoning_history
        if mode not in _MODES:
            raise ConfigError(f"{name}: reasoning_history must be one of {', '.join(_MODES)}")
        self.reasoning_history: ReasoningHistory = mode
        self.effort_style = options.pop("effort", self.preset.effort)
        if self.effort_style not in _EFFORTS:
            raise ConfigError(f"{name}: effort must be one of {', '.join(_EFFORTS)}")
        self.stream_usage = bool(options.pop("stream_usage", self.preset.stream_usage))
        self.constrain_mode = options.pop("constrained_tools", "auto")
        if self.constrain_mode not in MODES:
            raise ConfigError(f"{name}: constrained_tools must be one of {', '.join(MODES)}")
        unknown = sorted(set(options) - set(_OPTIONS))
        if unknown:
            known = ", ".join(("effort", "stream_usage", "constrained_tools", *_OPTIONS))
            raise ConfigError(f"{name}: unknown option {unknown[0]!r} (known: {known})")
        self.options = options
        self._read_timeout = positive_number(name, "timeout", options.get("timeout", READ_TIMEOUT))
        self._headers = {**self.preset.headers, **endpoint.headers}
        self._client: Any = None
        self._probes: dict[str, Found] = {}
        self._kinds: dict[str, str] = {}  # model -> the server kind the probe found ("" none)
        self._constraint_refused = False

    # -- client ---------------------------------------------------------------------------------
    def _http_client(self) -> Any:
        """The HTTP client the SDK is given (None: its own). A composed kind (``copilot``)
        returns one whose request hook adds per-request headers."""
        return None

    def _get_client(self) -> Any:
        if self._client is None:
            import httpx2

            read = self._read_timeout
            key = self.endpoint.require_key() or NO_KEY
            headers = dict(self._headers)
            if not any(h.lower() == "authorization" for h in headers):
                # explicit, so the SDK's OPENAI_CUSTOM_HEADERS cannot put another one in
                headers["Authorization"] = f"Bearer {key}"
            client = _sdk_class()(
                api_key=key,
                base_url=self.base_url,
                max_retries=0,
                timeout=httpx2.Timeout(read, connect=CONNECT_TIMEOUT),
                default_headers=headers,
                http_client=self._http_client(),
            )
            # OpenAI's own account headers must not go to other vendors
            client.organization = None
            client.project = None
            self._client = client
        return self._client

    def _params(self, request: Request, constrain: bool = False) -> dict[str, Any]:
        if constrain:  # the model is told the shape its reply is held to
            request = request.model_copy(update={"system": [*request.system, NOTE]})
        params: dict[str, Any] = {
            "model": request.model,
            "messages": build_messages(request, self.name, self.reasoning_history),
            "stream": True,
        }
        if self.stream_usage:
            params["stream_options"] = {"include_usage": True}
        tools = build_tools(request)
        if tools:
            params["tools"] = tools
        if constrain:
            params["response_format"] = response_format(request.tools)
        if request.max_tokens:
            params["max_tokens"] = request.max_tokens
        for key in ("temperature", "top_p", "seed"):
            if self.options.get(key) is not None:
                params[key] = self.options[key]
        for key in ("temperature", "top_p"):  # the model's profile (profile.py, [models])
            if getattr(request, key) is not None:
                params[key] = getattr(request, key)
        extra = dict(self.options.get("extra_body") or {})
        penalty = self._penalty_key(request.model) if request.repeat_penalty is not None else ""
        if penalty:
            extra[penalty] = request.repeat_penalty
        effort = "high" if request.effort == "max" else request.effort
        if effort and self.effort_style == "reasoning_effort":
            params["reasoning_effort"] = effort
        elif effort and self.effort_style == "openrouter":
            extra["reasoning"] = {"effort": effort}
        if extra:
            params["extra_body"] = extra
        return params

    def _penalty_key(self, model: str) -> str:
        """How this server spells the repeat penalty ("" where it is not sent): vLLM's
        ``repetition_penalty``, else llama.cpp's ``repeat_penalty`` (LM Studio and most local
        servers take it). Sent to a server the probe identified, or one on this machine; never
        to a vendor's endpoint, which may refuse a field it does not know."""
        kind = self._kinds.get(model) or ""
        local = self.endpoint.local or (self.name in PRESETS and self.preset.local)
        if not kind and not local:
            return ""
        vllm = (kind or self.preset.prober) == "vllm"
        return "repetition_penalty" if vllm else "repeat_penalty"

    # -- streaming ------------------------------------------------------------------------------
    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        from openai.lib.streaming.chat import ChatCompletionStreamState

        client = self._get_client()
        state: Any = ChatCompletionStreamState()
        splitter = ThinkSplitter()
        started: set[int] = set()
        usage = None
        chunks = 0
        constrain = await self._constrain(request)
        notice = ""
        try:
            sdk_stream = await self._open(client, request, constrain)
        except APIError as exc:
            if not (constrain and refused(exc)):
                raise
            # once: the same request without the constraint, which is never sent again
            self._constraint_refused, constrain = True, False
            notice = (
                f"{self.name} refused a grammar-constrained reply ({exc.message}); tool calls "
                "are requested without the constraint from now on"
            )
        if notice:
            yield StreamEvent.notice(notice)
            sdk_stream = await self._open(client, request, False)
        response = sdk_stream.response
        try:
            with mapped_errors(self.endpoint, self.base_url):
                async with sdk_stream:
                    async for chunk in watch(sdk_stream, WIRE, self.name, _done_seen(sdk_stream)):
                        chunks += 1
                        choice = chunk.choices[0] if chunk.choices else None
                        delta = choice.delta if choice is not None else None
                        if choice is not None and delta is not None:
                            if choice.index is None:  # some servers leave it out
                                choice.index = 0
                            if delta.content is not None and not isinstance(delta.content, str):
                                raise self._malformed("content is not a string")
                            if delta.tool_calls:
                                _number_calls(delta.tool_calls, started)
                        self._accumulate(state, chunk)
                        if chunk.usage is not None:
                            usage = chunk.usage
                        if choice is None or delta is None or choice.index:
                            continue
                        extra = delta.model_extra
                        if extra:
                            reasoning = extra.get("reasoning_content") or extra.get("reasoning")
                            if reasoning and isinstance(reasoning, str):
                                yield StreamEvent.thinking_delta(reasoning)
                        if delta.content and constrain:  # JSON, read at the end: watched only
                            yield StreamEvent.tool_input_delta(delta.content)
                        elif delta.content:
                            thinking, text = splitter.feed(delta.content)
                            if thinking:
                                yield StreamEvent.thinking_delta(thinking)
                            if text:
                                yield StreamEvent.text_delta(text)
                        if delta.refusal:
                            yield StreamEvent.text_delta(delta.refusal)
                        for call in delta.tool_calls or ():
                            fn = call.function
                            if call.index not in started and fn is not None and fn.name:
                                started.add(call.index)
                                yield StreamEvent.tool_use_start(fn.name, call.id or "")
                            if fn is not None and isinstance(fn.arguments, str) and fn.arguments:
                                yield StreamEvent.tool_input_delta(fn.arguments, call.id or "")
        except CutReply as cut:
            raise self._no_reply(response, cut) if not chunks else cut from None
        thinking, text = splitter.finish()
        if thinking:
            yield StreamEvent.thinking_delta(thinking)
        if text:
            yield StreamEvent.text_delta(text)
        done = self._done(request, state.current_completion_snapshot, usage, constrain)
        answer = done.message.text() if constrain and done.message is not None else ""
        if answer:
            yield StreamEvent.text_delta(answer)
        yield done

    async def _open(self, client: Any, request: Request, constrain: bool) -> Any:
        with mapped_errors(self.endpoint, self.base_url):
            return await client.chat.completions.create(**self._params(request, constrain))

    async def _constrain(self, request: Request) -> bool:
        """Whether to hold this reply to the tool-call grammar (:mod:`.constrained`)."""
        if not request.tools or self._constraint_refused or self.constrain_mode == "never":
            return False
        vendor = self.name in PRESETS and not self.preset.local
        remote = self.name not in PRESETS and not self.endpoint.local
        hosted = vendor or (remote and self.constrain_mode != "always")
        if not wanted(self.constrain_mode, request.constrain_tools, hosted):
            return False
        return await self._kind(request.model) in KINDS

    async def _kind(self, model: str) -> str:
        """The server kind the probe identified (``llamacpp``, ``vllm``…), "" when none."""
        if model not in self._kinds:
            await self._probe(model)
            self._kinds.setdefault(model, "")
        return self._kinds[model]

    def _no_reply(self, response: Any, cut: CutReply) -> APIError:
        """No chunk at all: an event stream cut before its first (``cut``, retryable), or not
        an event stream — say what came instead and from which path (a wrong base_url, a
        proxy's error page)."""
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if kind == "text/event-stream":
            return cut
        path = response.request.url.path  # never the query: it may carry a key
        return APIError(
            0,
            f"expected an event stream from {path}, got {kind or 'no content type'}"
            " (is base_url right?)",
            retryable=False,
            provider=self.name,
        )

    def _accumulate(self, state: Any, chunk: Any) -> None:
        """Feed the SDK accumulator; a chunk it cannot take is a server fault, not a crash."""
        try:
            state.handle_chunk(chunk)
        except (
            AssertionError, AttributeError, TypeError, RuntimeError, IndexError, KeyError, ValueError
        ) as exc:  # fmt: skip
            raise self._malformed(type(exc).__name__) from exc

    def _malformed(self, why: str) -> APIError:
        return APIError(
            0,
            f"malformed stream chunk from the server ({why})",
            retryable=False,
            provider=self.name,
        )

    def _done(self, request: Request, snapshot: Any, usage: Any, constrain: bool) -> StreamEvent:
        choice = next((c for c in snapshot.choices if c.index == 0), None)
        message = choice.message if choice is not None else None
        content = getattr(message, "content", None)
        content = content if isinstance(content, str) else ""
        thinking, text = split_think(content)
        extra = getattr(message, "model_extra", None) or {}
        reasoning = extra.get("reasoning_content") or extra.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            thinking = reasoning + thinking
        refusal = getattr(message, "refusal", None)
        if refusal:
            text += refusal
        calls = _tool_calls(getattr(message, "tool_calls", None))
        if not calls and request.tools and text:
            names = [t.name for t in request.tools]
            read = read_reply if constrain else recover_tool_calls
            text, calls = read(text, names)
        finish = choice.finish_reason if choice is not None else None
        stop = StopReason.REFUSAL if refusal else stop_reason_from(finish, bool(calls))
        return StreamEvent.done(
            assistant_message(request.model, thinking, self.name, text, calls),
            usage_from(usage),
            stop,
        )

    # -- ModelProber ----------------------------------------------------------------------------
    async def context_window(self, model: str) -> int | None:
        return (await self._probe(model))[0]

    def effort_applies(self, model: str) -> bool | None:
        """False where the effort is never sent (this preset's ``effort = "none"``)."""
        return False if self.effort_style == "none" else None

    async def supports_tools(self, model: str) -> bool | None:
        return (await self._probe(model))[1]

    async def model_params(self, model: str) -> float | None:
        """The model's size in billions of parameters, as llama.cpp's ``/v1/models`` reports it
        (``meta.n_params``); None when the server does not say. Never raises."""
        if self.preset.prober == "none":
            return None
        return await listed_params(self.base_url, self.endpoint.api_key, model)

    async def _probe(self, model: str) -> tuple[int | None, bool | None]:
        if model in self._probes:
            return self._probes[model]
        if self.preset.prober == "none":
            return None, None
        kind, found = await probe_server(
            self.preset.prober, self.base_url, self.endpoint.api_key, model
        )
        if kind:
            self._kinds[model] = kind
        if found[0] is not None:
            self._probes[model] = found
        return found


# -- helpers ---------------------------------------------------------------------------------


@functools.cache
def _sdk_class() -> Any:
    """``AsyncOpenAI`` whose event decoder notes a ``data: [DONE]`` (the SDK reads it and
    stops, never handing it on): Chat Completions' other end (stream_end.ENDS)."""
    from openai import AsyncOpenAI
    from openai._streaming import SSEDecoder

    class Decoder(SSEDecoder):
        done = False

        def decode(self, line: str) -> Any:
            event = super().decode(line)
            if event is not None and event.data.startswith("[DONE]"):
                self.done = True
            return event

    class Client(AsyncOpenAI):
        def _make_sse_decoder(self) -> Decoder:
            return Decoder()

    return Client


def _done_seen(sdk_stream: Any) -> Callable[[], bool]:
    """Whether ``sdk_stream``'s decoder read ``[DONE]`` (False on an SDK that has none)."""
    return lambda: bool(getattr(getattr(sdk_stream, "_decoder", None), "done", False))


def _number_calls(calls: list[Any], started: set[int]) -> None:
    """Give an ``index`` to tool-call deltas sent without one (some servers send each call
    whole, unnumbered), so the SDK accumulator keeps them apart instead of failing."""
    if all(call.index is not None for call in calls):
        return
    known = [call.index for call in calls if call.index is not None]
    following = max([*started, *known], default=-1) + 1
    for call in calls:
        if call.index is None:
            call.index = following
            following += 1


def _tool_calls(calls: Any) -> list[Block]:
    out: list[Block] = []
    for call in calls or ():
        fn = getattr(call, "function", None)
        if fn is None or not fn.name:
            continue
        out.append(
            Block.tool_use(call.id or new_call_id(), fn.name, repair_arguments(fn.arguments or ""))
        )
    return out
