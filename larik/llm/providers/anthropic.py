"""Anthropic adapter: the Messages API through the official ``anthropic`` SDK.

``AnthropicProvider.stream`` builds the request (anthropic_convert.build_params), opens the
SDK's streaming helper ``client.messages.stream(...)`` as an async context manager (so closing
our iterator closes the HTTP response), yields display deltas, and ends with one ``done``
carrying the message the SDK's own accumulator assembled. Every SDK / transport error goes
through :func:`map_error`, the one place vendor errors become Larik errors.

The SDK is imported lazily, when the first request builds the client. User docs:
docs/providers/anthropic.md.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator
from typing import TYPE_CHECKING, Any, cast

from ..errors import APIError, ContextOverflow, MissingKeyError
from ..options import positive_number
from ..types import EventType, Request, StreamEvent
from .anthropic_convert import build_params, thinking_style, to_message, to_stop_reason, to_usage
from .common import is_context_overflow, malformed_stream, retry_after
from .stream_end import watch

if TYPE_CHECKING:
    from anthropic import AsyncAnthropic

    from ..endpoint import Endpoint

__all__ = ["AnthropicProvider", "map_error"]

CONNECT_TIMEOUT = 15.0
READ_TIMEOUT = 600.0  # generous: stalls are caught by larik.llm.timeout

# error.type of an error event inside a 200 stream -> the HTTP status it stands for
_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}


class AnthropicProvider:
    """Claude through the Messages API, at ``endpoint`` (its base URL, key and headers).

    ``thinking``: None follows ``Request.effort``; False never sends thinking or effort (for
    models or proxies that reject them); True turns thinking on even for effort "".
    ``prompt_cache``: cache breakpoints on the last system block and the latest turn.
    ``options``: ``timeout`` (read timeout in seconds); other keys are ignored.
    """

    def __init__(
        self,
        endpoint: Endpoint,
        *,
        thinking: bool | None = None,
        prompt_cache: bool = True,
        **options: Any,
    ) -> None:
        self.endpoint = endpoint
        self.name = endpoint.name
        self.thinking = thinking
        self.prompt_cache = prompt_cache
        self.options = options
        self._read_timeout = positive_number(
            self.name, "timeout", options.get("timeout", READ_TIMEOUT)
        )
        self._sdk: AsyncAnthropic | None = None
        self.replay_name = self.name  # whose thinking is replayed (a composed kind: per account)

    def _http_client(self) -> Any:
        """The HTTP client the SDK is given (None: its own). A composed kind (``copilot``)
        returns one whose request hook adds per-request headers."""
        return None

    def _client(self) -> AsyncAnthropic:
        if self._sdk is not None:
            return self._sdk
        ep = self.endpoint
        if not ep.api_key:
            raise MissingKeyError(self.name, ep.key_names)
        import anthropic
        import httpx2

        read = self._read_timeout
        self._sdk = anthropic.AsyncAnthropic(
            api_key=ep.api_key,
            base_url=ep.base_url,  # always given: the SDK never reads ANTHROPIC_BASE_URL itself
            default_headers=dict(ep.headers) or None,
            max_retries=0,
            timeout=httpx2.Timeout(read, connect=CONNECT_TIMEOUT),
            http_client=self._http_client(),
        )
        return self._sdk

    def effort_applies(self, model: str) -> bool:
        """Whether an effort changes anything: not for a model that takes no thinking, nor
        with ``thinking = false``."""
        return self.thinking is not False and thinking_style(model) != "none"

    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        client = self._client()
        import anthropic
        import httpx2

        params, plan = build_params(
            request, self.replay_name, thinking=self.thinking, prompt_cache=self.prompt_cache
        )
        tool_args: dict[int, list[str]] = {}
        final = None
        try:
            async with client.messages.stream(**params) as sdk_stream:
                # the SDK's event union does not narrow on ``.type``; the checks below do
                events = cast("AsyncIterator[Any]", sdk_stream)
                async for ev in watch(events, "anthropic-messages", self.name):
                    kind = ev.type
                    if kind == "content_block_delta":
                        delta = ev.delta
                        dk = delta.type
                        if dk == "text_delta":
                            yield StreamEvent(EventType.TEXT_DELTA, delta.text)
                        elif dk == "thinking_delta":
                            yield StreamEvent(EventType.THINKING_DELTA, delta.thinking)
                        elif dk == "input_json_delta":
                            pieces = tool_args.get(ev.index)
                            if pieces is not None:
                                pieces.append(delta.partial_json)
                            if delta.partial_json:
                                yield StreamEvent.tool_input_delta(delta.partial_json)
                    elif kind == "content_block_start":
                        block = ev.content_block
                        if block.type == "tool_use":
                            tool_args[ev.index] = []
                            yield StreamEvent(EventType.TOOL_USE_START, block.name, block.id)
                    elif kind == "message_stop":
                        final = ev.message
        except (anthropic.AnthropicError, httpx2.HTTPError, httpx2.StreamError) as exc:
            raise map_error(exc, self.name, request.model, plan.on, self.endpoint.key_hint) from exc
        except (ValueError, RuntimeError) as exc:  # malformed event data, events out of order
            raise map_error(exc, self.name, request.model, plan.on, self.endpoint.key_hint) from exc
        assert final is not None  # the watch saw message_stop, which carries it
        message = to_message(final, request.model, self.replay_name, tool_args)
        yield StreamEvent.done(message, to_usage(final.usage), to_stop_reason(final.stop_reason))


def map_error(
    exc: BaseException, provider: str, model: str, thinking_on: bool, key_hint: str
) -> APIError:
    """The one place an SDK or transport error becomes a Larik error."""
    import anthropic
    import httpx2

    if isinstance(exc, anthropic.APIStatusError):
        return _status_error(exc, provider, model, thinking_on, key_hint)
    if isinstance(exc, anthropic.APITimeoutError | httpx2.TimeoutException):
        return APIError(0, "the request timed out", retryable=True, provider=provider)
    if isinstance(exc, anthropic.APIConnectionError):
        cause = type(exc.__cause__).__name__ if exc.__cause__ else "connection error"
        return APIError(0, f"could not connect ({cause})", retryable=True, provider=provider)
    if isinstance(exc, httpx2.HTTPError | httpx2.StreamError):
        name = type(exc).__name__
        return APIError(
            0, f"connection lost mid-stream ({name})", retryable=True, provider=provider
        )
    if isinstance(exc, ValueError | RuntimeError):
        return malformed_stream(provider, exc)
    return APIError(0, f"SDK error ({type(exc).__name__})", retryable=False, provider=provider)


def _status_error(
    exc: Any, provider: str, model: str, thinking_on: bool, key_hint: str
) -> APIError:
    status: int = exc.status_code
    kind = exc.type if isinstance(exc.type, str) else ""
    if status < 400:  # an `event: error` inside a 200 stream
        status = _TYPE_STATUS.get(kind, 500)
    detail = exc.api_message if isinstance(exc.api_message, str) else ""
    text = ": ".join(p for p in (kind, detail) if p) or "unexpected error response"
    if status in (400, 413) and is_context_overflow(detail):
        return ContextOverflow(text, status=status, provider=provider)
    if status == 401:
        text += f" (set {key_hint} to a valid key)"
    elif status == 400 and thinking_on:
        text += (
            f" (thinking was on for {model}; to turn it off set thinking = false"
            f' in [providers.{provider}.options] of the config, or use effort "")'
        )
    headers = getattr(exc.response, "headers", None)
    return APIError(status, text, retry_after=retry_after(headers), provider=provider)
