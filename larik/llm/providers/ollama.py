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

import ipaddress
import json
import os
import re
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..errors import APIError, ConfigError, ContextOverflow, redact
from ..replay import replayable_blocks
from ..toolcalls import TOOL_IMAGES_NOTE, new_call_id, recover_tool_calls, repair_arguments
from ..types import Block, Message, Request, StopReason, StreamEvent, Usage

if TYPE_CHECKING:  # httpx2 is imported lazily, when the first request is made
    import httpx2

__all__ = ["OllamaProvider", "TOOL_IMAGES_NOTE", "parse_host"]

DEFAULT_HOST = "http://127.0.0.1:11434"
DEFAULT_PORT = 11434
ENV_HOST = "OLLAMA_HOST"
ENV_KEY = "OLLAMA_API_KEY"
CONTEXT_CAP = 32768  # num_ctx sent when the model allows more and none is configured
_LEVELS = {"low": "low", "medium": "medium", "high": "high", "max": "high"}
_OPTION_KEYS = frozenset({"keep_alive", "options", "timeout", "context_cap", "api_key_env"})
_OVERFLOW = re.compile(
    r"exceed\w*[^.]{0,60}context|context[^.]{0,60}exceed|prompt is (too long|longer than)"
    r"|context_length_exceeded|exceed_context_size",
    re.IGNORECASE,
)


def parse_host(value: str) -> str:
    """``OLLAMA_HOST`` as a base URL, read the way Ollama's own clients read it: a bare host or
    ``host:port`` gets ``http://`` (port 11434 when none is given; 80/443 after an explicit
    scheme); ``0.0.0.0`` (a bind address) means this host."""
    value = value.strip().rstrip("/")
    if not value:
        return DEFAULT_HOST
    explicit = "://" in value
    parts = urlsplit(value if explicit else "http://" + value)
    try:
        port = parts.port
    except ValueError as exc:
        raise ConfigError(f"{ENV_HOST}: bad port in {value!r}") from exc
    if port is None:
        port = (443 if parts.scheme == "https" else 80) if explicit else DEFAULT_PORT
    host = parts.hostname or "127.0.0.1"
    if host in ("0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}:{port}{parts.path}"


@dataclass(slots=True)
class _ModelInfo:
    """What ``/api/show`` says about a model (None: not reported)."""

    context_length: int | None
    capabilities: list[str] | None
    think_values: list[Any] | None


class OllamaProvider:
    """Ollama's native chat API. Also a ``ModelProber`` (``/api/show``)."""

    def __init__(
        self,
        *,
        name: str = "ollama",
        api_key: str | None = None,
        base_url: str | None = None,
        headers: dict[str, str] | None = None,
        num_ctx: int | None = None,
        **options: Any,
    ) -> None:
        unknown = sorted(set(options) - _OPTION_KEYS)
        if unknown:
            raise ConfigError(f"{name}: unknown option(s) {', '.join(unknown)}")
        if num_ctx is not None and (not isinstance(num_ctx, int) or num_ctx <= 0):
            raise ConfigError(f"{name}: num_ctx must be a positive integer")
        extra = options.get("options") or {}
        if not isinstance(extra, dict):
            raise ConfigError(f"{name}: options must be a table of Ollama runtime options")
        self.name = name
        self.num_ctx = num_ctx
        self.context_cap = int(
            _positive(name, "context_cap", options.get("context_cap", CONTEXT_CAP))
        )
        self.keep_alive = options.get("keep_alive")
        self.extra_options: dict[str, Any] = dict(extra)
        self.timeout = _positive(name, "timeout", options.get("timeout", 600.0))
        self._api_key = api_key
        self._key_env = str(options.get("api_key_env") or ENV_KEY)
        self._headers = dict(headers or {})
        if base_url:
            self.base_url = base_url.rstrip("/")
            if "://" not in self.base_url:
                self.base_url = "http://" + self.base_url
        else:
            self.base_url = parse_host(os.environ.get(ENV_HOST, ""))
        self._client: httpx2.AsyncClient | None = None
        self._info: dict[str, _ModelInfo] = {}

    # -- client ---------------------------------------------------------------------------
    def _http(self) -> httpx2.AsyncClient:
        if self._client is None:
            import httpx2

            headers = {"Content-Type": "application/json", **self._headers}
            key = self._api_key if self._api_key is not None else os.environ.get(self._key_env)
            if key and not any(h.lower() == "authorization" for h in headers):
                headers["Authorization"] = f"Bearer {key}"
            self._client = httpx2.AsyncClient(
                base_url=self.base_url,
                headers=headers,
                timeout=httpx2.Timeout(self.timeout, connect=15.0),
                # a local server is never reached through HTTP(S)_PROXY from the environment
                trust_env=not _is_loopback(self.base_url),
            )
        return self._client

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # -- ModelProber ----------------------------------------------------------------------
    async def _model_info(self, model: str) -> _ModelInfo | None:
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
        info = _ModelInfo(_context_length(data), _capabilities(data), _think_values(data))
        self._info[model] = info
        return info

    async def context_window(self, model: str) -> int | None:
        """The window requests to ``model`` run with: the ``num_ctx`` this adapter sends."""
        if self.num_ctx:
            return self.num_ctx
        info = await self._model_info(model)
        if info is None or not info.context_length:
            return None
        return min(info.context_length, self.context_cap)

    async def supports_tools(self, model: str) -> bool | None:
        info = await self._model_info(model)
        if info is None or info.capabilities is None:
            return None
        return "tools" in info.capabilities

    # -- streaming ------------------------------------------------------------------------
    async def stream(self, request: Request) -> AsyncIterator[StreamEvent]:
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
                    async for obj in chunks:
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
                                block = _tool_block(call)
                                calls.append(block)
                                yield StreamEvent.tool_use_start(block.name, block.id)
                        if obj.get("done"):
                            final = obj
        except (httpx2.HTTPError, httpx2.StreamError) as exc:
            raise self._transport_error(exc) from exc
        if final is None:
            raise APIError(
                0, "the stream ended before Ollama said done", retryable=True, provider=self.name
            )
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

    async def _chunks(self, resp: httpx2.Response) -> AsyncIterator[dict[str, Any]]:
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
            obj = json.loads(line)
        except ValueError:
            raise APIError(
                0, "Ollama sent a line that is not JSON", retryable=False, provider=self.name
            ) from None
        if not isinstance(obj, dict):
            raise APIError(
                0, "Ollama sent an unexpected JSON value", retryable=False, provider=self.name
            )
        if "error" in obj:
            message = _error_text(obj["error"])
            if _OVERFLOW.search(message):
                raise ContextOverflow(message, status=0, provider=self.name)
            raise APIError(0, f"error in stream: {message}", retryable=True, provider=self.name)
        return obj

    # -- request --------------------------------------------------------------------------
    async def _body(self, request: Request) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": request.model,
            "messages": self._messages(request),
            "stream": True,
            "truncate": False,
        }
        if request.tools:
            body["tools"] = [
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
        info = None
        if self.num_ctx is None or request.effort:
            info = await self._model_info(request.model)
        think = _think(request.effort, request.model, info)
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
        if options:
            body["options"] = options
        if self.keep_alive is not None:
            body["keep_alive"] = self.keep_alive
        return body

    def _messages(self, request: Request) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        system = request.system_text()
        if system:
            out.append({"role": "system", "content": system})
        names: dict[str, str] = {}  # tool call id -> tool name, for tool messages
        for message in request.messages:
            blocks = replayable_blocks(message, self.name, request.model)
            if not blocks:
                continue
            if message.role == "assistant":
                out.append(_assistant(blocks, names))
            else:
                out.extend(_user(blocks, names))
        return out

    # -- errors (every HTTP/transport failure is mapped here) -------------------------------
    def _status_error(self, status: int, raw: bytes, resp: httpx2.Response, model: str) -> APIError:
        message = _body_error(raw) or resp.reason_phrase or "request failed"
        retry_after = _retry_after(resp.headers.get("retry-after"))
        if _OVERFLOW.search(message):
            return ContextOverflow(message, status=status, provider=self.name)
        if status == 404 and "not found" in message.lower() and "model" in message.lower():
            message = f"model {model!r} not found — run `ollama pull {model}`"
        elif status == 404:
            message = f"{message} (is {_safe_url(self.base_url)} an Ollama server?)"
        elif status in (401, 403):
            message = f"{message} (set {self._key_env} for a hosted or proxied Ollama)"
        return APIError(status, message, retry_after=retry_after, provider=self.name)

    def _transport_error(self, exc: Exception) -> APIError:
        import httpx2

        if isinstance(exc, httpx2.ConnectError | httpx2.ConnectTimeout):
            return APIError(
                0,
                f"cannot reach Ollama at {_safe_url(self.base_url)} — is `ollama serve` running?",
                retryable=True,
                provider=self.name,
            )
        kind = type(exc).__name__
        retryable = isinstance(exc, httpx2.TransportError)
        return APIError(
            0, f"connection to Ollama failed ({kind})", retryable=retryable, provider=self.name
        )


# -- conversion helpers -------------------------------------------------------------------


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
            calls.append({"id": b.id, "function": {"name": b.name, "arguments": _arguments(b)}})
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


def _arguments(block: Block) -> dict[str, Any]:
    """Tool arguments as the JSON object Ollama wants; unparseable text becomes ``{}``."""
    try:
        return block.input_dict()
    except ValueError:
        return {}


def _tool_block(call: dict[str, Any]) -> Block:
    fn = call.get("function") or {}
    args = fn.get("arguments")
    if isinstance(args, str):  # some servers send the arguments as text
        raw = repair_arguments(args)
    else:
        raw = json.dumps(args if args is not None else {}, ensure_ascii=False)
    call_id = call.get("id") or new_call_id()
    return Block(type="tool_use", id=call_id, name=fn.get("name") or "", input=raw)


def _think(effort: str, model: str, info: _ModelInfo | None) -> bool | str | None:
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


def _positive(name: str, key: str, value: Any) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = 0.0
    if number <= 0:
        raise ConfigError(f"{name}: {key} must be a positive number")
    return number


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


def _error_text(err: Any) -> str:
    """Ollama's ``error`` value as text; unwraps a nested JSON error (llama-server's)."""
    if isinstance(err, dict):
        return str(err.get("message") or err.get("error") or err)
    text = str(err)
    if text.startswith("{"):
        try:
            inner = json.loads(text)
        except ValueError:
            return text
        if isinstance(inner, dict):
            return _error_text(inner.get("error", inner))
    return text


def _body_error(raw: bytes) -> str:
    try:
        data = json.loads(raw)
    except ValueError:
        text = raw.decode("utf-8", "replace").strip()
        return text if text and len(text) < 200 and "<" not in text else ""
    if isinstance(data, dict) and "error" in data:
        return _error_text(data["error"])
    return ""


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def _is_loopback(url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _safe_url(url: str) -> str:
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return redact(f"{parts.scheme}://{host}{port}{parts.path}")


def _dumps(body: dict[str, Any]) -> bytes:
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
