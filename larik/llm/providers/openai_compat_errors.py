"""Every failure of the ``openai`` SDK and its transport, as Larik's errors, in one place
(:func:`mapped_errors`): a status answer, an error object inside a 200 stream, a connection
that failed. A refused connection to a server on this machine is not retryable (nothing is
listening: fail fast with "is the server running?"), while a remote one's transport errors are.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from ..errors import APIError, ContextOverflow, LarikError
from . import common
from .common import is_context_overflow

if TYPE_CHECKING:
    from ..endpoint import Endpoint

__all__ = ["mapped_errors"]


@contextmanager
def mapped_errors(endpoint: Endpoint, base_url: str) -> Iterator[None]:
    """Every SDK and transport failure, mapped to APIError / ContextOverflow in one place."""
    import httpx2
    import openai

    name = endpoint.name
    try:
        yield
    except LarikError:
        raise
    except openai.APIStatusError as exc:
        raise _status_error(exc, endpoint) from exc
    except openai.APIConnectionError as exc:
        cause = exc.__cause__
        retryable = True
        if isinstance(cause, httpx2.ConnectError):
            # nothing listening on this machine: retrying in a second will not start it
            retryable = not endpoint.local
            hint = "is the server running?" if endpoint.local else _why(cause)
            message = f"cannot reach {base_url}: {hint}"
        else:
            what = "timed out" if isinstance(exc, openai.APITimeoutError) else "failed"
            detail = f": {type(cause).__name__}: {cause}" if cause is not None else ""
            message = f"connection {what}{detail}"
        raise APIError(0, message, retryable=retryable, provider=name) from exc
    except openai.APIError as exc:  # an error object inside a 200 stream
        raise _in_stream_error(exc, name) from exc
    except (ValueError, RecursionError) as exc:  # an event not JSON, or nested too deep
        raise common.malformed_stream(name, exc) from exc
    except (httpx2.TransportError, OSError) as exc:
        raise APIError(
            0,
            f"connection failed: {type(exc).__name__}: {exc}",
            retryable=True,
            provider=name,
        ) from exc
    except openai.OpenAIError as exc:
        raise APIError(0, str(exc), retryable=False, provider=name) from exc


def _status_error(exc: Any, endpoint: Endpoint) -> APIError:
    status = exc.status_code
    message, code = _describe(exc.body, exc.message)
    retry_after = common.retry_after(exc.response.headers)
    if status == 401:
        hint = endpoint.key_hint
        return APIError(status, f"invalid or missing API key: set {hint}", provider=endpoint.name)
    if is_context_overflow(message, code):
        return ContextOverflow(message, status=status, provider=endpoint.name)
    return APIError(status, message, retry_after=retry_after, provider=endpoint.name)


def _in_stream_error(exc: Any, name: str) -> APIError:
    message, code = _describe(exc.body, exc.message)
    if is_context_overflow(message, code):
        return ContextOverflow(message, provider=name)
    status = int(code) if code.isdigit() and 100 <= int(code) < 600 else 0
    retryable = status >= 500 or status in (408, 429)
    return APIError(status, message, retryable=retryable, provider=name)


def _why(cause: BaseException) -> str:
    """What a failed connection to a remote host came to, in a few words (no URL, no key)."""
    return " ".join(str(cause).split())[:120] or type(cause).__name__


def _describe(body: Any, fallback: str) -> tuple[str, str]:
    """``(message, code)`` from a vendor error body (the ``error`` object or the whole body)."""
    if isinstance(body, Mapping) and isinstance(body.get("error"), Mapping):
        body = body["error"]
    if not isinstance(body, Mapping):
        return fallback, ""
    message = body.get("message")
    message = message if isinstance(message, str) and message else fallback
    code = body.get("code") if body.get("code") is not None else body.get("type")
    code = "" if code is None else str(code)
    meta = body.get("metadata")
    raw = meta.get("raw") if isinstance(meta, Mapping) else None
    if isinstance(raw, str) and raw:
        message = f"{message}: {raw[:200]}"
    kind = body.get("type")
    if isinstance(kind, str) and kind and kind not in message:
        message = f"{kind}: {message}"
    return message, code
