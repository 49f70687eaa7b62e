"""Ollama's native ``/api/chat`` (NDJSON streaming) over ``httpx2``. Docs: docs/providers/ollama.md.

There is no SDK and so no SDK accumulator: the final message is assembled from the parsed chunks
in one pass (text, thinking and tool calls gathered in lists, joined once at the end).

Request mapping:

* ``system`` joined into one ``system`` message; tool results become ``tool`` messages (with
  ``tool_name`` and ``tool_call_id``); tool-result images follow them in a ``user`` message
  introduced by ``TOOL_IMAGES_NOTE`` (larik.llm.toolcalls); user images go in ``images``.
* Thinking replayed (same provider and model only) as the assistant message's ``thinking``.
* ``options.num_ctx`` is always sent when known, so a long conversation is never silently cut to
  Ollama's small default window: the configured ``num_ctx``, else ``min(model max, 32768)`` from
  ``/api/show``; ``truncate: false`` turns an over-long prompt into an error (ContextOverflow).
* A tool call the model wrote as text (Hermes ``<tool_call>``, Mistral ``[TOOL_CALLS]``, a bare
  JSON call) is recovered into a real call by ``larik.llm.toolcalls`` when no structured call came.
* ``think`` from Effort: omitted for the default; a level ("low"/"medium"/"high") where the model
  advertises levels, else ``true``; omitted when the model says it cannot think.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from .. import jsontext
from ..errors import APIError, ConfigError, ContextOverflow, redact
from ..options import positive_number
from ..others_parse import json_value
from ..toolcalls import TOOL_IMAGES_NOTE, recover_tool_calls
from ..types import Block, Message, Request, StopReason, StreamEvent, Usage
from . import common
from . import ollama_convert as convert
from .common import is_context_overflow
from .stream_end import watch

if TYPE_CHECKING:  # httpx2 is imported lazily, when the first request is made
    import httpx2

    from ..endpoint import Endpoint

__all__ = ["OllamaProvider", "TOOL_IMAGES_NOTE"]

CONTEXT_CAP = 32768  # num_ctx sent when the model allows more and none is configured
_OPTION_KEYS = frozenset({"keep_alive", "options", "timeout", "context_cap"})


class OllamaProvider:
    """Ollama's native chat API. Also a ``ModelProber`` (``/api/show``)."""

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        num_ctx: int | None = None,
        **options: Any,
    ) -> None:
        name = endpoint.name
        unknown = sorted(set(options) - _OPTION_KEYS)
        if unknown:
            raise ConfigError(f"{name}: unknown option(s) {', '.join(unknown)}")
        if num_ctx is not None and (not isinstance(num_ctx, int) or num_ctx <= 0):
            raise ConfigError(f"{name}: num_ctx must be a positive integer")
        extra = options.get("options") or {}
        if not isinstance(extra, dict):
            raise ConfigError(f"{name}: options must be a table of Ollama runtime options")
        self.endpoint = endpoint
        self.name = name
        self.num_ctx = num_ctx
        self.context_cap = int(
            positive_number(name, "context_cap", options.get("context_cap", CONTEXT_CAP))
        )
        self.keep_alive = options.get("keep_alive")
        self.extra_options: dict[str, Any] = dict(extra)
        self.timeout = positive_number(name, "timeout", options.get("timeout", 600.0))
        self.base_url = endpoint.base_url.rstrip("/")
        self._client: httpx2.AsyncClient | None = None
        self._info: dict[str, convert.ShowInfo] = {}

    # -- client ---------------------------------------------------------------------------
    def _http(self) -> httpx2.AsyncClient:
        if self._client is None:
            import httpx2

            headers = {"Content-Type": "application/json", **self.endpoint.headers}
            key = self.endpoint.api_key
            if key and not any(h.lower() == "authorization" for h in headers):
                headers["Authorization"] = f"Bearer {key}"
            self._client = httpx2.AsyncClient(
                base_url=self.base_url,
                headers=headers,
                timeout=httpx2.Timeout(self.timeout, connect=15.0),
                # a local server is never reached through HTTP(S)_PROXY from the environment
                trust_env=not self.endpoint.local,
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- ModelProber ----------------------------------------------------------------------
    async def _show_info(self, model: str) -> convert.ShowInfo | None:
        """``POST /api/show``, cached per model once it succeeds. Any failure is None."""
        if model in self._info:
            return self._info[model]
        try:
            resp = await self._http().post(
                "/api/show", content=_dumps({"model": model}), timeout=15.0
            )
            if resp.status_code != 200:
                return None
            data = resp.json()
        except Exception:  # a probe never raises: unknown is an answer
            return None
        if not isinstance(data, dict):
            return None
        info = convert.show_info(data)
        self._info[model] = info
        return info

    async def context_window(self, model: str) -> int | None:
        """The window requests to ``model`` run with: the ``num_ctx`` this adapter sends."""
        if self.num_ctx:
            return self.num_ctx
        info = await self._show_info(model)
        if info is None or not info.context_length:
            return None
        return min(info.context_length, self.context_cap)

    async def supports_tools(self, model: str) -> bool | None:
        info = await self._show_info(model)
        if info is None or info.capabilities is None:
            return None
        return "tools" in info.capabilities

    async def supports_images(self, model: str) -> bool | None:
        info = await self._show_info(model)
        if info is None or info.capabilities is None:
            return None
        return "vision" in info.capabilities

    # -- streaming ------------------------------------------------------------------------
    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        import httpx2

        body = _dumps(await self._body(request))
        text: list[str] = []
        thinking: list[str] = []
        calls: list[Block] = []
        final: dict[str, Any] | None = None
        try:
            async with self._http().stream("POST", "/api/chat", content=body) as resp:
                if resp.status_code >= 400:
                    raw = await resp.aread()
                    raise self._status_error(resp.status_code, raw, resp, request.model)
                async with aclosing(self._chunks(resp)) as chunks:
                    async for obj in watch(chunks, "ollama-chat", self.name):
                        msg = obj.get("message")
                        if msg:
                            piece = msg.get("thinking")
                            if piece:
                                thinking.append(piece)
                                yield StreamEvent.thinking_delta(piece)
                            piece = msg.get("content")
                            if piece:
                                text.append(piece)
                                yield StreamEvent.text_delta(piece)
                            for call in msg.get("tool_calls") or ():
                                block = convert.tool_block(call)
                                calls.append(block)
                                yield StreamEvent.tool_use_start(block.name, block.id)
                        if obj.get("done"):
                            final = obj
        except (httpx2.HTTPError, httpx2.StreamError) as exc:
            raise self._transport_error(exc) from exc
        assert final is not None  # the watch saw it
        if not calls and text and request.tools:  # a tool call written as text
            rest, calls = recover_tool_calls("".join(text), [t.name for t in request.tools])
            if calls:
                text = [rest] if rest else []
                for block in calls:
                    yield StreamEvent.tool_use_start(block.name, block.id)
        yield self._done(request.model, final, thinking, text, calls)

    def _done(
        self,
        model: str,
        final: dict[str, Any],
        thinking: list[str],
        text: list[str],
        calls: list[Block],
    ) -> StreamEvent:
        blocks: list[Block] = []
        if thinking:
            blocks.append(Block.thinking_block("".join(thinking), provider=self.name))
        if text:
            blocks.append(Block.text_block("".join(text)))
        blocks.extend(calls)
        usage = Usage(
            input=int(final.get("prompt_eval_count") or 0),
            output=int(final.get("eval_count") or 0),
        )
        if final.get("done_reason") == "length":
            stop = StopReason.MAX_TOKENS
        else:
            stop = StopReason.TOOL_USE if calls else StopReason.END_TURN
        message = Message(role="assistant", blocks=blocks, model=model)
        return StreamEvent.done(message, usage, stop)

    async def _chunks(self, resp: httpx2.Response) -> AsyncGenerator[dict[str, Any], None]:
        """The parsed NDJSON objects of a response; a single JSON object (``stream: false``)
        without a trailing newline is one chunk too. An ``error`` chunk raises."""
        pending = b""
        async for data in resp.aiter_bytes():
            if pending:
                data = pending + data
            lines = data.split(b"\n")
            pending = lines.pop()
            for line in lines:
                if line.strip():
                    yield self._parse_chunk(line)
        if pending.strip():
            yield self._parse_chunk(pending)

    def _parse_chunk(self, line: bytes) -> dict[str, Any]:
        try:
            obj = json_value(line)
        except ValueError as exc:
            raise common.malformed_stream(self.name, exc) from None
        if not isinstance(obj, dict):
            raise APIError(
                0, "Ollama sent an unexpected JSON value", retryable=False, provider=self.name
            )
        if "error" in obj:
            message = convert.error_text(obj["error"])
            if is_context_overflow(message):
                raise ContextOverflow(message, status=0, provider=self.name)
            raise APIError(0, f"error in stream: {message}", retryable=True, provider=self.name)
        return obj

    # -- request --------------------------------------------------------------------------
    async def _body(self, request: Request) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": convert.messages(request, self.name),
            "stream": True,
            "truncate": False,
        }
        if request.tools:
            body["tools"] = convert.tools(request)
        info = None
        if self.num_ctx is None or request.effort:
            info = await self._show_info(request.model)
        think = convert.think(request.effort, request.model, info)
        if think is not None:
            body["think"] = think
        options: dict[str, Any] = dict(self.extra_options)
        num_ctx = self.num_ctx
        if num_ctx is None and info is not None and info.context_length:
            num_ctx = min(info.context_length, self.context_cap)
        if num_ctx:
            options["num_ctx"] = num_ctx
        if request.max_tokens > 0:
            options["num_predict"] = request.max_tokens
        for key in ("temperature", "top_p", "repeat_penalty"):  # the model's profile
            if getattr(request, key) is not None:
                options[key] = getattr(request, key)
        if options:
            body["options"] = options
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return body

    # -- errors (every HTTP/transport failure is mapped here) -------------------------------
    def _status_error(self, status: int, raw: bytes, resp: httpx2.Response, model: str) -> APIError:
        message = convert.body_error(raw) or resp.reason_phrase or "request failed"
        retry_after = common.retry_after(resp.headers)
        if is_context_overflow(message):
            return ContextOverflow(message, status=status, provider=self.name)
        if status == 404 and "not found" in message.lower() and "model" in message.lower():
            message = f"model {model!r} not found — run `ollama pull {model}`"
        elif status == 404:
            message = f"{message} (is {_safe_url(self.base_url)} an Ollama server?)"
        elif status in (401, 403):
            message = f"{message} (set {self.endpoint.key_hint} for a hosted or proxied Ollama)"
        return APIError(status, message, retry_after=retry_after, provider=self.name)

    def _transport_error(self, exc: Exception) -> APIError:
        import httpx2

        if isinstance(exc, httpx2.ConnectError | httpx2.ConnectTimeout):
            # refused on this machine: nothing is listening, and a retry will not start it
            refused_here = isinstance(exc, httpx2.ConnectError) and self.endpoint.local
            # asking whether `ollama serve` runs is for this machine; a remote host: what failed
            why = "is `ollama serve` running?" if self.endpoint.local else type(exc).__name__
            return APIError(
                0,
                f"cannot reach Ollama at {_safe_url(self.base_url)} — {why}",
                retryable=not refused_here,
                provider=self.name,
            )
        kind = type(exc).__name__
        retryable = isinstance(exc, httpx2.TransportError)
        return APIError(
            0, f"connection to Ollama failed ({kind})", retryable=retryable, provider=self.name
        )


# -- helpers ---------------------------------------------------------------------------------


def _safe_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return redact(f"{parts.scheme}://{host}{port}{parts.path}")


def _dumps(body: dict[str, Any]) -> bytes:
    return jsontext.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
