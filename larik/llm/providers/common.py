"""Rules every adapter follows the same way, written once.

* :func:`retry_after` — seconds a server asked us to wait: ``retry-after-ms``, else
  ``retry-after`` as seconds or as an HTTP date (RFC 9110). Every adapter reads its error
  response's headers through it.
* :func:`is_context_overflow` — whether an error text says the prompt does not fit the model's
  window (the phrases Anthropic, OpenAI, Gemini, Ollama, llama.cpp, vLLM, LM Studio and the
  hosted OpenAI-compatible vendors use). Adapters keep their own status checks around it.
* :func:`tool_arguments` — a stored tool call's arguments as the JSON *object* the object-typed
  APIs (Anthropic ``input``, Gemini ``args``, Ollama ``arguments``) want. The one policy for a
  call whose text is not an object (a model wrote broken JSON, then the conversation moved to
  another provider): it is sent as ``{"_raw_arguments": "<the text as written>"}`` — the next
  model sees what was really sent, next to the tool result that refused it. Empty text is
  ``{}``. (The string-typed APIs, Chat Completions and Responses, send the text as it is.)
* :func:`malformed_stream` — a stream event that is not valid JSON (``data: {not json``) is a
  provider error like a dropped connection: status 0, retryable, so retry and fallback act on it
  (never an "internal error" escaping the adapter).
* :mod:`.stream_end` — the event that ends a reply on each wire, and the one check that a
  stream which stops before it is a cut reply (``CutReply``: no ``done``, none of its calls run).
* :func:`replay.messages_for <larik.llm.replay.messages_for>` — which stored blocks a provider
  may see; converters call it once per request (the agent does not filter).
"""

from __future__ import annotations

import re
import time
from typing import Any

from ..errors import APIError
from ..others_parse import json_value

__all__ = [
    "RAW_ARGUMENTS",
    "is_context_overflow",
    "malformed_stream",
    "retry_after",
    "tool_arguments",
]

RAW_ARGUMENTS = "_raw_arguments"

_OVERFLOW = re.compile(
    r"prompt is (too long|longer than)|context[ _](length|size|window)|maximum context"
    r"|exceed\w*[^.]{0,60}context|context[^.]{0,60}exceed|exceed_context_size"
    r"|too large for model|reduce the length of the messages|too many tokens"
    r"|exceeds the maximum number of tokens|input token count.*exceeds",
    re.IGNORECASE,
)


def retry_after(headers: Any) -> float | None:
    """Seconds a server asked us to wait: ``retry-after-ms``, else ``retry-after`` as seconds or
    as an HTTP date. ``headers`` is any mapping with ``.get`` (None: no headers)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    import email.utils  # only here: it costs start-up time elsewhere

    try:
        return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
    except (TypeError, ValueError, IndexError):
        return None


def is_context_overflow(text: str, code: str = "") -> bool:
    """Whether an error's text (or its code) says the prompt is too long for the model."""
    return code == "context_length_exceeded" or _OVERFLOW.search(f"{code} {text}") is not None


def tool_arguments(text: str) -> dict[str, Any]:
    """A tool call's stored arguments as an object (see the module docstring for the policy)."""
    if not text.strip():
        return {}
    try:
        value = json_value(text)
    except ValueError:
        value = None
    return value if isinstance(value, dict) else {RAW_ARGUMENTS: text}


def malformed_stream(provider: str, exc: BaseException | None = None) -> APIError:
    """The error for a stream event that cannot be read (bad JSON, a cut-off line)."""
    why = f" ({type(exc).__name__})" if exc is not None else ""
    return APIError(0, f"malformed stream from the server{why}", retryable=True, provider=provider)
