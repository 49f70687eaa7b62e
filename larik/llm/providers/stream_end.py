"""How each wire API says a reply is whole, and the one rule for a stream that stops short.

A stream can stop anywhere without an error: a close-delimited body (no length, no chunks)
just ends when the connection closes, a chunked body can end cleanly with its last empty
chunk, a proxy can cut a long reply. Only the wire API's own terminal event says the reply is
whole. :data:`ENDS` names it for every wire API an adapter speaks:

=====================  ==================================================================
wire                   the event that ends a reply
=====================  ==================================================================
anthropic-messages     ``message_stop``
openai-responses       ``response.completed`` (or ``response.incomplete`` / ``.failed``)
gemini                 a candidate's ``finishReason`` (or a prompt blocked as a whole)
ollama-chat            an object with ``"done": true``
openai-chat            a choice's ``finish_reason``, or ``data: [DONE]``
=====================  ==================================================================

An adapter reads its raw events through :func:`watch`: a stream that runs out before its end,
or whose connection breaks mid-body (a reset: httpx2's transport error, under whichever SDK),
raises :class:`~larik.llm.errors.CutReply` there and the adapter writes no ``done`` — so none
of the reply's tool calls can run, and no adapter decides this for itself. CutReply is
retryable: the retry layer sends the request again while nothing of the reply was shown;
after that the turn ends with it (larik/llm/retry.py, which also makes any other error after
part of a reply was shown a CutReply naming its cause).

How the SDKs surface a stream cut short, checked by tests/llm/providers/test_stream_end.py:
``anthropic``, ``openai`` (both APIs) and ``google-genai`` end their iterators quietly on a
body that ends (an unfinished SSE event at the end is dropped, as the SSE spec says) and
raise a transport error on a reset. Ollama's NDJSON has no SDK (its adapter reads it; a half
line at the very end is a malformed event, retried the same way). The ``openai`` SDK keeps
``[DONE]`` to itself: the openai-compatible adapter's decoder notes it (``also``).
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from ..errors import CutReply, LarikError

__all__ = ["ENDS", "End", "Watched", "watch"]

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class End:
    """One wire API's end: ``says`` names it (in the error), ``came`` finds it in one raw event
    as its adapter reads it (an SDK event object, or a parsed NDJSON object)."""

    says: str
    came: Callable[[Any], bool]


def _anthropic(event: Any) -> bool:
    return getattr(event, "type", None) == "message_stop"


_RESPONSE_ENDS = frozenset({"response.completed", "response.incomplete", "response.failed"})


def _responses(event: Any) -> bool:
    return getattr(event, "type", None) in _RESPONSE_ENDS


def _gemini(chunk: Any) -> bool:
    if any(c.finish_reason for c in chunk.candidates or ()):
        return True
    feedback = chunk.prompt_feedback  # the prompt refused as a whole: no candidate follows
    return feedback is not None and bool(feedback.block_reason)


def _ollama(obj: Any) -> bool:
    return isinstance(obj, dict) and bool(obj.get("done"))


def _chat(chunk: Any) -> bool:
    return any(c.finish_reason for c in chunk.choices or ())


ENDS: dict[str, End] = {
    "anthropic-messages": End("message_stop", _anthropic),
    "openai-responses": End("response.completed", _responses),
    "gemini": End("a finish reason", _gemini),
    "ollama-chat": End('"done": true', _ollama),
    "openai-chat": End("a finish reason or [DONE]", _chat),
}


class Watched(Generic[T]):
    """A raw event stream, passed through as it is; running out before its wire's end raises
    CutReply. ``ended`` says whether the end came. Not a generator: nothing to close but the
    stream it reads, which its adapter closes."""

    def __init__(
        self,
        events: AsyncIterable[T],
        wire: str,
        provider: str,
        also: Callable[[], bool] | None = None,
    ) -> None:
        self._events = aiter(events)
        self.end = ENDS[wire]
        self.provider = provider
        self._also = also
        self.ended = False

    def __aiter__(self) -> AsyncIterator[T]:
        return self

    async def __anext__(self) -> T:
        try:
            event = await anext(self._events)
        except StopAsyncIteration:
            if not (self.ended or (self._also is not None and self._also())):
                raise CutReply(
                    f"the stream stopped before {self.end.says}", provider=self.provider
                ) from None
            raise
        except Exception as exc:
            broke = None if isinstance(exc, LarikError) else _transport_failure(exc)
            if broke is None:  # a decided error (an error event…) goes up as it is
                raise
            what = type(broke).__name__
            why = f"the connection broke before {self.end.says} ({what})"
            raise CutReply(why, provider=self.provider) from exc
        if not self.ended and self.end.came(event):
            self.ended = True
        return event


def _transport_failure(exc: BaseException) -> BaseException | None:
    """The transport error (httpx2's, under every SDK here) that ``exc`` is or wraps."""
    import httpx2

    seen: set[int] = set()
    found: BaseException | None = exc
    while found is not None and id(found) not in seen:
        if isinstance(found, httpx2.TransportError):
            return found
        seen.add(id(found))
        found = found.__cause__ or found.__context__
    return None


def watch(
    events: AsyncIterable[T],
    wire: str,
    provider: str,
    also: Callable[[], bool] | None = None,
) -> Watched[T]:
    """``events`` read through the end check of ``wire`` (a key of :data:`ENDS`).
    ``also``: asked at the end, for a terminal event the SDK keeps to itself (``[DONE]``)."""
    return Watched(events, wire, provider, also)
