"""OpenAI Responses API adapter, through the official ``openai`` SDK (imported lazily).

Streams with ``client.responses.stream(...)``: display deltas (output text, reasoning summary
text, a ``tool_use_start`` per function call) while the reply streams, then one ``done`` built
from the SDK's own final ``Response`` (its stream accumulator's result on ``response.completed``,
or the ``response.incomplete`` event's response). Conversion lives in
``openai_responses_convert``; docs/providers/openai.md has the user-facing rules.

Errors are mapped in one place (:func:`map_error`): HTTP statuses to ``APIError`` (401 names
the key variable), "context length exceeded" to ``ContextOverflow``, a dropped or refused
connection to a retryable ``APIError(0, …)``, and ``response.failed`` / ``error`` events inside
the stream to ``APIError`` as well. SDK retries are off: retry is ``larik.llm.retry``'s job.

One thing is retried here, before anything is yielded: a 400 saying the model does not take a
reasoning parameter we sent (``include`` of encrypted reasoning, ``reasoning.effort``/``summary``,
or the ``xhigh`` effort). The request is sent again without it, and the adapter remembers that
for the model.
"""

from __future__ import annotations

import re
from collections.abc import AsyncGenerator
from typing import TYPE_CHECKING, Any

from ..errors import APIError, ConfigError, ContextOverflow, MissingKeyError
from ..options import positive_number
from ..types import Request, StreamEvent
from .common import is_context_overflow, malformed_stream, retry_after
from .openai_responses_convert import (
    build_params,
    is_reasoning_model,
    message_from_response,
    stop_reason,
    usage_from_response,
)
from .stream_end import watch

if TYPE_CHECKING:
    from ..endpoint import Endpoint

__all__ = ["OpenAIResponsesProvider", "map_error"]

CONNECT_TIMEOUT = 15.0
READ_TIMEOUT = 600.0
SUMMARIES = ("auto", "concise", "detailed", "", None)

_CLIENT_CODE = re.compile(r"invalid|image|policy|residency|unsupported|empty|not_found|too_")


class OpenAIResponsesProvider:
    """``OpenAIResponsesProvider(endpoint, **options)``: the Responses API at ``endpoint``.

    Options: ``reasoning_summary`` ("auto", "concise", "detailed", or "" for none; default
    "auto"), ``timeout`` (read timeout in seconds, default 600). Unknown options are kept in
    ``options`` and otherwise ignored.
    """

    def __init__(self, endpoint: Endpoint, **options: Any) -> None:
        self.endpoint = endpoint
        self.name = name = endpoint.name
        self.replay_name = name
        """Stamped on the reasoning it returns and matched on what it replays (a sign-in kind
        adds the account: another account's encrypted reasoning is never sent)."""
        self.options = options
        summary = options.get("reasoning_summary", "auto")
        if summary not in SUMMARIES:
            raise ConfigError(
                f'provider {name}: reasoning_summary must be auto, concise, detailed or ""'
            )
        self._summary: str | None = summary or None
        self._timeout = positive_number(
            f"provider {name}", "timeout", options.get("timeout", READ_TIMEOUT)
        )
        self._client: Any = None
        # what models turned out not to take (learned from 400s, see _downgrade)
        self._plain: set[str] = set()
        self._no_summary: set[str] = set()
        self._effort_cap: dict[str, str] = {}

    # -- client -----------------------------------------------------------------------------
    def _http_client(self) -> Any:
        """The HTTP client the SDK is given (None: its own). A composed kind (``copilot``)
        returns one whose request hook adds per-request headers."""
        return None

    def _sdk_client(self) -> Any:
        if self._client is None:
            ep = self.endpoint
            if not ep.api_key:
                raise MissingKeyError(self.name, ep.key_names)
            import httpx2
            import openai

            self._client = openai.AsyncOpenAI(
                api_key=ep.api_key,
                base_url=ep.base_url,  # always given: the SDK never reads OPENAI_BASE_URL itself
                default_headers=dict(ep.headers) or None,
                max_retries=0,
                timeout=httpx2.Timeout(self._timeout, connect=CONNECT_TIMEOUT),
                http_client=self._http_client(),
            )
        return self._client

    def effort_applies(self, model: str) -> bool:
        """The Responses API takes a reasoning effort (``reasoning.effort``) for every model."""
        return True

    def params(self, request: Request) -> dict[str, Any]:
        """The request body fields this adapter sends for ``request`` (minus ``stream``)."""
        model = request.model
        return build_params(
            request,
            self.replay_name,
            reasoning=model not in self._plain and is_reasoning_model(model),
            summary=None if model in self._no_summary else self._summary,
            effort_cap=self._effort_cap.get(model),
        )

    # -- streaming --------------------------------------------------------------------------
    async def stream(self, request: Request) -> AsyncGenerator[StreamEvent, None]:
        import openai

        client = self._sdk_client()
        while True:
            params = self.params(request)
            final: Any = None
            try:
                async with client.responses.stream(**params) as events:
                    thinking = False
                    async for ev in watch(events, "openai-responses", self.name):
                        kind = ev.type
                        if kind == "response.output_text.delta":
                            yield StreamEvent.text_delta(ev.delta)
                        elif kind == "response.reasoning_summary_text.delta":
                            yield StreamEvent.thinking_delta(ev.delta)
                        elif kind == "response.reasoning_summary_part.added":
                            if thinking:  # parts are joined with a blank line
                                yield StreamEvent.thinking_delta("\n\n")
                            thinking = True
                        elif kind == "response.reasoning_text.delta":
                            yield StreamEvent.thinking_delta(ev.delta)
                        elif kind == "response.refusal.delta":
                            yield StreamEvent.text_delta(ev.delta)
                        elif kind == "response.function_call_arguments.delta":
                            if ev.delta:
                                yield StreamEvent.tool_input_delta(ev.delta)
                        elif kind == "response.output_item.added":
                            item = ev.item
                            if item is not None and item.type == "function_call":
                                yield StreamEvent.tool_use_start(item.name, item.call_id)
                        elif kind == "response.completed" or kind == "response.incomplete":
                            final = ev.response
                        elif kind == "response.failed":
                            raise _failed(ev.response.error, self.name)
                        elif kind == "error":
                            raise stream_error(ev.code, ev.message, self.name)
            except openai.BadRequestError as exc:
                if final is None and self._downgrade(request.model, params, exc):
                    continue
                raise map_error(exc, self.name, self.endpoint.key_hint) from exc
            except (openai.OpenAIError, RuntimeError, AssertionError, LookupError) as exc:
                raise map_error(exc, self.name, self.endpoint.key_hint) from exc
            except ValueError as exc:  # an event that is not JSON (the SDK's json.loads)
                raise malformed_stream(self.name, exc) from exc
            break
        assert final is not None  # the watch saw the event that carries it
        message = message_from_response(final, self.replay_name, request.model)
        yield StreamEvent.done(message, usage_from_response(final), stop_reason(final, message))

    def _downgrade(self, model: str, sent: dict[str, Any], exc: Any) -> bool:
        """After a 400 about a reasoning parameter, stop sending it to ``model``.
        True if the next attempt will differ."""
        param = getattr(exc, "param", None) or ""
        reasoning = sent.get("reasoning") or {}
        if param == "reasoning.effort" and reasoning.get("effort") == "xhigh":
            self._effort_cap[model] = "high"
        elif param == "reasoning.summary" and "summary" in reasoning:
            self._no_summary.add(model)
        elif (param == "include" or param.startswith("reasoning")) and "include" in sent:
            self._plain.add(model)
        else:
            return False
        return True

    # -- ModelProber is not offered: OpenAI's API reports neither window nor tool support.


# -- errors ---------------------------------------------------------------------------------


def map_error(exc: BaseException, provider: str, key_hint: str) -> APIError:
    """Every SDK / transport failure as a one-line ``APIError`` (keys and prompts left out)."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        return _status_error(exc, provider, key_hint)
    if isinstance(exc, openai.APITimeoutError):
        return APIError(0, "request timed out", retryable=True, provider=provider)
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__
        what = f"{type(cause).__name__}: {cause}" if cause else "connection failed"
        return APIError(0, f"connection error: {what}", retryable=True, provider=provider)
    if isinstance(exc, openai.APIError):  # an error object inside the event stream
        body = exc.body if isinstance(exc.body, dict) else {}
        return stream_error(body.get("code"), str(body.get("message") or exc.message), provider)
    return APIError(0, f"malformed response stream: {exc}", retryable=True, provider=provider)


def _status_error(exc: Any, provider: str, key_hint: str) -> APIError:
    status: int = exc.status_code
    body = exc.body if isinstance(exc.body, dict) else {}
    code = body.get("code") or ""
    kind = body.get("type") or ""
    text = str(body.get("message") or "") or (exc.body if isinstance(exc.body, str) else "")
    if is_context_overflow(text, code):
        return ContextOverflow(
            f"prompt is too long for the model: {text}", status=status, provider=provider
        )
    if status == 401:
        return APIError(
            401,
            f"authentication failed ({code or kind or 'unauthorized'}): check {key_hint}",
            retryable=False,
            provider=provider,
        )
    label = " ".join(x for x in (kind, f"({code})" if code else "") if x)
    message = f"{label}: {text}" if label and text else (label or text or "request failed")
    return APIError(
        status, message, retry_after=retry_after(exc.response.headers), provider=provider
    )


def stream_error(code: str | None, message: str, provider: str) -> APIError:
    """An error reported inside a 200 stream (``error`` or ``response.failed``)."""
    code = code or ""
    if is_context_overflow(message, code):
        return ContextOverflow(f"prompt is too long for the model: {message}", provider=provider)
    if code == "rate_limit_exceeded":
        status = 429
    elif code and code != "server_error" and _CLIENT_CODE.search(code):
        status = 400
    else:
        status = 500
    label = f"response failed ({code})" if code else "response failed"
    return APIError(status, f"{label}: {message}", provider=provider)


def _failed(error: Any, provider: str) -> APIError:
    if error is None:
        return stream_error(None, "no reason given", provider)
    return stream_error(error.code, error.message, provider)
