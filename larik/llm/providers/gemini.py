"""Gemini adapter: the Gemini API (generateContent) through the official ``google-genai`` SDK.

The SDK is imported lazily, when the first request builds the client; importing this module
imports no SDK. Request/response mapping lives in :mod:`.gemini_convert` (see its docstring and
docs/providers/gemini.md for the rules: thought signatures, thought summaries, effort).

Client settings: SDK retries off (``HttpRetryOptions(attempts=1)``; retrying is
larik/llm/retry.py's job), the SDK's own httpx2 client replaced by ours so that aiohttp is never
picked and timeouts are ours (connect 15 s, read 600 s; stalls are caught by
larik/llm/timeout.py). Every response our client opens is tracked per stream and closed when
the stream ends, is closed early (``aclose``) or its task is cancelled.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import AsyncGenerator, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..errors import APIError, ConfigError, ContextOverflow, MissingKeyError
from ..options import positive_number
from ..types import Request, StreamEvent
from .common import is_context_overflow, malformed_stream, retry_after
from .stream_end import watch

if TYPE_CHECKING:
    from google import genai

    from ..endpoint import Endpoint

__all__ = ["GeminiProvider"]

CONNECT_TIMEOUT = 15.0
READ_TIMEOUT = 600.0

# Responses opened by the current stream (set per stream; read by the client's response hook).
_OPEN_RESPONSES: contextvars.ContextVar[list[Any] | None] = contextvars.ContextVar(
    "larik_gemini_open_responses", default=None
)
_DELAY = re.compile(r"^\s*([0-9.]+)s\s*$")


class GeminiProvider:
    """Gemini via google-genai.

    ``options``: ``api_version`` (default: the SDK's, v1); ``timeout`` (read) and
    ``connect_timeout`` in seconds; ``thinking`` (unset: by model name, False: never send a
    thinking config, True: send one even for model names Larik does not know).
    """

    def __init__(self, endpoint: Endpoint, **options: Any) -> None:
        self.endpoint = endpoint
        self.name = name = endpoint.name
        self._api_version: str | None = options.get("api_version")
        self._connect_timeout = positive_number(
            name, "connect_timeout", options.get("connect_timeout", CONNECT_TIMEOUT)
        )
        self._read_timeout = positive_number(name, "timeout", options.get("timeout", READ_TIMEOUT))
        thinking = options.get("thinking")
        if thinking not in (None, True, False):
            raise ConfigError(f"{name}: thinking must be true or false, not {thinking!r}")
        self._thinking: bool | None = thinking
        self._client: genai.Client | None = None

    # -- client --------------------------------------------------------------------------------
    def effort_applies(self, model: str) -> bool | None:
        """Whether the effort sets a thinking level or budget (Gemini 2.5 and later); None for
        a model Larik knows no thinking controls of."""
        from .gemini_convert import _family

        return True if _family(model) else None

    def _key(self) -> str:
        key = self.endpoint.api_key or ""
        if not key.strip():
            raise MissingKeyError(self.name, self.endpoint.key_names)
        return key

    def _sdk(self) -> genai.Client:
        if self._client is None:
            key = self._key()
            import httpx2
            from google import genai
            from google.genai import types

            timeout = httpx2.Timeout(self._read_timeout, connect=self._connect_timeout).as_dict()

            async def set_timeout(request: httpx2.Request) -> None:
                # The SDK passes its own (here: no) timeout per request; ours wins.
                request.extensions["timeout"] = timeout

            async def track(response: httpx2.Response) -> None:
                opened = _OPEN_RESPONSES.get()
                if opened is not None:
                    opened.append(response)

            http = httpx2.AsyncClient(event_hooks={"request": [set_timeout], "response": [track]})
            options = types.HttpOptions(
                base_url=self.endpoint.base_url,  # always given: never GOOGLE_GEMINI_BASE_URL
                api_version=self._api_version,
                headers=dict(self.endpoint.headers) or None,
                retry_options=types.HttpRetryOptions(attempts=1),
                httpx_async_client=http,
            )
            self._client = genai.Client(vertexai=False, api_key=key, http_options=options)
        return self._client

    # -- streaming -----------------------------------------------------------------------------
    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        client = self._sdk()
        from . import gemini_convert as conv

        contents = conv.build_contents(request, self.name)
        config = conv.build_config(request, self._thinking)
        assembler = conv.Assembler(self.name)
        opened: list[Any] = []
        token = _OPEN_RESPONSES.set(opened)
        try:
            with self._errors():
                chunks = await client.aio.models.generate_content_stream(
                    model=request.model, contents=contents, config=config
                )
                try:
                    async for chunk in watch(chunks, "gemini", self.name):
                        for event in assembler.feed(chunk):
                            yield event
                finally:
                    await chunks.aclose()  # type: ignore[attr-defined]
            done = assembler.done(request.model)
        finally:
            for response in opened:
                await response.aclose()
            try:
                _OPEN_RESPONSES.reset(token)
            except ValueError:  # closed from another context (e.g. by the GC's finalizer)
                pass
        yield done

    # -- errors --------------------------------------------------------------------------------
    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Every SDK / transport error becomes an APIError here, and only here."""
        import httpx2
        import pydantic
        from google.genai import errors as genai_errors

        try:
            yield
        except genai_errors.APIError as exc:
            raise self._api_error(exc) from exc
        except httpx2.TimeoutException as exc:
            raise APIError(
                0, f"timed out talking to Gemini ({type(exc).__name__})", provider=self.name
            ) from exc
        except httpx2.TransportError as exc:
            raise APIError(
                0, f"connection to Gemini failed ({type(exc).__name__})", provider=self.name
            ) from exc
        except (
            genai_errors.UnknownApiResponseError,
            pydantic.ValidationError,
            ValueError,
            RecursionError,  # an event nested deeper than the decoder goes
        ) as exc:
            raise malformed_stream(self.name, exc) from exc  # an event that cannot be read

    def _api_error(self, exc: Any) -> APIError:
        code = int(exc.code or 0)
        status = str(exc.status or "")
        message = str(exc.message or status or "request failed")
        reasons = _reasons(exc.details)
        if code == 401 or (code in (400, 403) and "API_KEY_INVALID" in reasons):
            return APIError(
                401,
                f"API key rejected ({status or code}: {message}); set {self.endpoint.key_hint}",
                retryable=False,
                provider=self.name,
            )
        if is_context_overflow(message):
            return ContextOverflow(message, status=code, provider=self.name)
        text = f"{status}: {message}" if status else message
        return APIError(code, text, retry_after=_retry_after(exc), provider=self.name)


def _details(body: Any) -> list[dict[str, Any]]:
    """The google.rpc detail objects (ErrorInfo, RetryInfo, ...) of an error body."""
    error = body.get("error", body) if isinstance(body, dict) else None
    items = error.get("details") if isinstance(error, dict) else None
    return [d for d in items if isinstance(d, dict)] if isinstance(items, list) else []


def _reasons(body: Any) -> set[str]:
    """The ``reason`` of every google.rpc.ErrorInfo in an error body."""
    return {str(d["reason"]) for d in _details(body) if d.get("reason")}


def _retry_after(exc: Any) -> float | None:
    """Retry-After header (common.retry_after), else the google.rpc.RetryInfo ``retryDelay``."""
    found = retry_after(getattr(getattr(exc, "response", None), "headers", None))
    if found is not None:
        return found
    for d in _details(exc.details):
        m = _DELAY.match(str(d.get("retryDelay", "")))
        if m:
            return float(m.group(1))
    return None
