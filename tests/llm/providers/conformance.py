"""The conformance suite: the same scenarios run over every adapter.

Each adapter's test module defines a ``Kit`` (see the protocol below) that knows how to write
canned replies in its vendor's wire format and how to build the adapter pointed at the
loopback server; ``tests/llm/providers/test_conformance.py`` runs every scenario here for every
kit listed in ``KITS``. Scenarios follow the six adapter checks of the spec: opaque replay
fields preserved, complete tool calls, usage before the final event, the real stop reason,
startup vs in-stream errors, prompt stop on cancellation — plus text, thinking, drops and the
switching rule (a foreign model's thinking is not sent).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any, Protocol

import pytest

from larik.config import Config
from larik.llm.endpoint import Endpoint, resolve_endpoint
from larik.llm.errors import APIError, CutReply
from larik.llm.provider import Provider
from larik.llm.types import (
    Block,
    EventType,
    Message,
    Request,
    StopReason,
    StreamEvent,
    ToolSpec,
    Usage,
)
from tests.loopback import LoopbackServer, Reply
from tests.patience import WAIT


class Kit(Protocol):
    name: str  # adapter name, used in test ids
    model: str  # a model id the adapter accepts
    env_var: str  # the key's env var, named by a 401 error ("" if none)

    def make(self, base_url: str) -> Provider:
        """The adapter pointed at the loopback server, with a dummy key."""

    def text_reply(self, pieces: list[str], usage: Usage) -> Reply:
        """A streamed reply whose text arrives in ``pieces``, reporting ``usage``."""

    def thinking_reply(self, thinking: str, signature: str, text: str) -> Reply:
        """Thinking (with ``signature`` where the API has one), then text."""

    def replay_token(self, signature: str) -> str | None:
        """A string the *next* request must carry byte-for-byte after ``thinking_reply`` was
        answered with ``signature`` (the signature itself, an encrypted item…), or None if the
        API has no replayable reasoning data."""

    def tool_call_reply(self, call_id: str, name: str, arg_pieces: list[str]) -> Reply:
        """One tool call whose JSON arguments stream in ``arg_pieces``."""

    def stop_replies(self) -> dict[StopReason, Reply]:
        """For each stop reason the API can report, a reply that ends with it."""

    def in_stream_error_reply(self) -> Reply | None:
        """Some text, then an error inside the stream (None if the API has no such thing)."""

    def error_body(self, status: int, message: str) -> Reply:
        """The API's error response for ``status`` before any stream."""

    def unended(self, reply: Reply) -> tuple[bytes, bytes]:
        """``reply``'s body cut just short of its end (the event that ends a reply on this
        wire, and all after it, left out), and what was left out: a stream cut before its end
        (tests/llm/providers/test_stream_end.py)."""


# -- helpers -------------------------------------------------------------------------------


def kit_endpoint(kind: str, base_url: str, **table: Any) -> Endpoint:
    """The endpoint routing resolves for a ``[providers.KIND]`` table of ``type = KIND`` pointed
    at ``base_url`` with a dummy key: kits build their adapter the way Larik does."""
    data = {"type": kind, "base_url": base_url, "api_key": "dummy-key", **table}
    return resolve_endpoint(kind, Config(providers={kind: data}))


TOOLS = [
    ToolSpec(
        name="read_file",
        description="Read a file",
        input_schema={"type": "object", "properties": {"path": {"type": "string"}}},
    )
]


def request(kit: Kit, messages: list[Message] | None = None, **kw: Any) -> Request:
    return Request(
        model=kit.model,
        system=["You are a test."],
        messages=messages or [Message.user("hello")],
        tools=TOOLS,
        max_tokens=256,
        **kw,
    )


async def drain(provider: Provider, req: Request) -> list[StreamEvent]:
    return [ev async for ev in provider.stream(req)]


def only_done(events: list[StreamEvent]) -> StreamEvent:
    dones = [e for e in events if e.type is EventType.DONE]
    assert len(dones) == 1, f"expected exactly one done, got {len(dones)}"
    assert events[-1] is dones[0], "done must be the last event"
    return dones[0]


# -- scenarios -----------------------------------------------------------------------------


async def scenario_text(kit: Kit, server: LoopbackServer) -> None:
    pieces = ["Hel", "lo, ", "wor", "ld!"]
    server.add(kit.text_reply(pieces, Usage(input=11, output=7)))
    events = await drain(kit.make(server.url), request(kit))
    deltas = [e.text for e in events if e.type is EventType.TEXT_DELTA]
    assert "".join(deltas) == "Hello, world!"
    assert len(deltas) >= 2, "text must stream as deltas"
    done = only_done(events)
    assert done.message.text() == "Hello, world!"
    assert done.message.role == "assistant"
    assert done.message.model == kit.model
    assert done.stop_reason is StopReason.END_TURN


async def scenario_usage_before_done(kit: Kit, server: LoopbackServer) -> None:
    server.add(kit.text_reply(["ok"], Usage(input=123, output=45)))
    done = only_done(await drain(kit.make(server.url), request(kit)))
    assert done.usage is not None
    assert done.usage.output == 45
    assert done.usage.input + done.usage.cache_read + done.usage.cache_write == 123


async def scenario_thinking(kit: Kit, server: LoopbackServer) -> None:
    server.add(kit.thinking_reply("Let me think about it.", "c2lnbmF0dXJlLWJ5dGVz+/=", "Answer."))
    events = await drain(kit.make(server.url), request(kit))
    thinking = "".join(e.text for e in events if e.type is EventType.THINKING_DELTA)
    assert thinking == "Let me think about it."
    done = only_done(events)
    assert done.message.text() == "Answer."
    assert any(b.type == "thinking" and b.text == thinking for b in done.message.blocks)


async def scenario_replay_signature(kit: Kit, server: LoopbackServer) -> None:
    sig = "RXFRQkNrWUlCeGdDS2tBYUJjZGVm+/=="
    token = kit.replay_token(sig)
    if token is None:
        pytest.skip(f"{kit.name} has no replayable reasoning data")
    provider = kit.make(server.url)
    server.add(kit.thinking_reply("Secret reasoning.", sig, "First answer."))
    first = only_done(await drain(provider, request(kit)))
    history = [Message.user("hello"), first.message, Message.user("and then?")]
    # same model: the reasoning data goes back byte-for-byte
    server.add(kit.text_reply(["fine"], Usage(input=1, output=1)))
    await drain(provider, request(kit, history))
    assert token.encode() in server.requests[-1].body
    # another model: it must not be sent
    foreign = [
        history[0],
        first.message.model_copy(update={"model": "some-other-model"}),
        history[2],
    ]
    server.add(kit.text_reply(["fine"], Usage(input=1, output=1)))
    await drain(provider, request(kit, foreign))
    body = server.requests[-1].body
    assert token.encode() not in body
    assert b"Secret reasoning." not in body
    assert b"First answer." in body, "text is portable and must still be sent"


async def scenario_tool_call(kit: Kit, server: LoopbackServer) -> None:
    server.add(kit.tool_call_reply("call_abc123", "read_file", ['{"pa', 'th": "sr', 'c/app.py"}']))
    events = await drain(kit.make(server.url), request(kit))
    starts = [e for e in events if e.type is EventType.TOOL_USE_START]
    assert [e.text for e in starts] == ["read_file"]
    done = only_done(events)
    calls = done.message.tool_uses()
    assert len(calls) == 1
    assert calls[0].name == "read_file" and calls[0].id
    assert json.loads(calls[0].input) == {"path": "src/app.py"}
    assert done.stop_reason is StopReason.TOOL_USE


async def scenario_stop_reasons(kit: Kit, server: LoopbackServer) -> None:
    replies = kit.stop_replies()
    assert StopReason.END_TURN in replies and StopReason.MAX_TOKENS in replies
    provider = kit.make(server.url)
    for stop, reply in replies.items():
        server.add(reply)
        done = only_done(await drain(provider, request(kit)))
        assert done.stop_reason is stop, f"{stop}: got {done.stop_reason}"


@pytest.mark.parametrize("status,retryable", [(429, True), (500, True), (400, False)])
async def scenario_startup_error(kit: Kit, server: LoopbackServer, status: int, retryable: bool):
    reply = kit.error_body(status, "something went wrong")
    if status == 429:
        reply.headers["Retry-After"] = "2"
    server.add(reply)
    events: list[StreamEvent] = []
    with pytest.raises(APIError) as ei:
        async for ev in kit.make(server.url).stream(request(kit)):
            events.append(ev)
    assert events == [], "a startup error comes before any event"
    err = ei.value
    assert err.status == status and err.retryable is retryable
    if status == 429:
        assert err.retry_after == 2
    assert "\n" not in str(err)


async def scenario_auth_error_names_env_var(kit: Kit, server: LoopbackServer) -> None:
    server.add(kit.error_body(401, "invalid x-api-key"))
    with pytest.raises(APIError) as ei:
        await drain(kit.make(server.url), request(kit))
    assert ei.value.status == 401 and not ei.value.retryable
    if kit.env_var:
        assert kit.env_var in str(ei.value)
    assert "dummy-key" not in str(ei.value)


async def scenario_in_stream_error(kit: Kit, server: LoopbackServer) -> None:
    reply = kit.in_stream_error_reply()
    if reply is None:
        pytest.skip(f"{kit.name} has no in-stream errors")
    server.add(reply)
    events: list[StreamEvent] = []
    with pytest.raises(APIError):
        async for ev in kit.make(server.url).stream(request(kit)):
            events.append(ev)
    assert not [e for e in events if e.type is EventType.DONE]


async def scenario_dropped_connection(kit: Kit, server: LoopbackServer) -> None:
    reply = kit.text_reply(["one ", "two ", "three ", "four"], Usage(input=1, output=1))
    reply.chunk_size = 40
    reply.drop_after = 2
    server.add(reply)
    events: list[StreamEvent] = []
    with pytest.raises(APIError) as ei:
        async for ev in kit.make(server.url).stream(request(kit)):
            events.append(ev)
    assert ei.value.retryable
    assert not [e for e in events if e.type is EventType.DONE]


async def scenario_cancel_closes_request(kit: Kit, server: LoopbackServer) -> None:
    reply = kit.text_reply(["first ", "second ", "third"], Usage(input=1, output=1))
    reply.body = _split_events(reply)
    reply.stall_after = 2
    server.add(reply)
    stream = kit.make(server.url).stream(request(kit))
    async with asyncio.timeout(WAIT):
        async for ev in stream:
            if ev.type is EventType.TEXT_DELTA:
                break
    await stream.aclose()  # type: ignore[attr-defined]
    assert await asyncio.to_thread(server.wait_disconnect), "server never saw the disconnect"


def events_of(body: bytes) -> list[bytes]:
    """A body's events as sent, each with its end of line: SSE events (a blank line ends
    each, LF or CRLF) or NDJSON lines."""
    if b"data:" not in body and b"event:" not in body:
        return [line for line in body.splitlines(keepends=True) if line.strip()]
    return [e for e in re.findall(rb".*?(?:\r?\n){2}|.+$", body, re.DOTALL) if e.strip()]


def split_before(reply: Reply, found: Callable[[bytes], bool]) -> tuple[bytes, bytes]:
    """``reply``'s body split before its first event that ``found`` picks."""
    events = events_of(b"".join(reply.chunks()))
    at = next((i for i, e in enumerate(events) if found(e)), len(events))
    return b"".join(events[:at]), b"".join(events[at:])


def _split_events(reply: Reply) -> list[bytes]:
    """Split a body into one chunk per SSE event / NDJSON line, so a stall lands mid-stream."""
    body = reply.chunks()
    data = b"".join(body)
    sep = b"\r\n\r\n" if b"\r\n\r\n" in data else (b"\n\n" if b"\n\n" in data else b"\n")
    parts = [p + sep for p in data.split(sep) if p.strip()]
    return parts  # type: ignore[return-value]


async def scenario_request_carries_tools_system_and_history(kit: Kit, server: LoopbackServer):
    server.add(kit.text_reply(["ok"], Usage(input=1, output=1)))
    history = [
        Message.user("read it"),
        Message(
            role="assistant",
            model=kit.model,
            blocks=[Block.tool_use("call_1", "read_file", '{"path":"a.py"}')],
        ),
        Message(role="user", blocks=[Block.tool_result("call_1", "print('hi')")]),
    ]
    await drain(kit.make(server.url), request(kit, history))
    body = server.requests[-1].body
    for needle in (b"You are a test.", b"read_file", b"call_1", b"print('hi')", b"a.py"):
        assert needle in body, f"{needle!r} missing from the request"
    assert b"dummy-key" not in body


SCENARIOS = [
    scenario_text,
    scenario_usage_before_done,
    scenario_thinking,
    scenario_replay_signature,
    scenario_tool_call,
    scenario_stop_reasons,
    scenario_auth_error_names_env_var,
    scenario_in_stream_error,
    scenario_dropped_connection,
    scenario_cancel_closes_request,
    scenario_request_carries_tools_system_and_history,
]


# -- the canonical conversation for request golden tests ----------------------------------

PNG_1PX = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="


def canonical_request(model: str, provider: str) -> Request:
    """System, user text + image, assistant thinking + text + tool call (produced by this very
    provider and model, so its reasoning is replayed), tool result with an image, follow-up.
    Each adapter's golden test asserts the exact JSON body it sends for this."""
    return Request(
        model=model,
        system=["You are Larik, a coding agent.", "Working directory: /work/app"],
        messages=[
            Message(
                role="user",
                blocks=[
                    Block.text_block("What is in this screenshot?"),
                    Block.image("image/png", PNG_1PX),
                ],
            ),
            Message(
                role="assistant",
                model=model,
                blocks=[
                    Block.thinking_block(
                        "The user wants the file.", signature="sig-abc123==", provider=provider
                    ),
                    Block.text_block("Let me look at the file."),
                    Block.tool_use("call_1", "read_file", '{"path": "app.py"}'),
                ],
            ),
            Message(
                role="user",
                blocks=[
                    Block.tool_result(
                        "call_1",
                        "def main():\n    pass\n",
                        images=[Block.image("image/png", PNG_1PX)],
                    )
                ],
            ),
            Message.user("Now fix it."),
        ],
        tools=TOOLS,
        max_tokens=1024,
        effort="high",
    )


# -- shared rules (larik/llm/providers/common.py) ------------------------------------------

#: How vendors say the prompt is too long (Anthropic, OpenAI, Gemini, llama.cpp).
OVERFLOW_TEXTS = [
    "prompt is too long: 212000 tokens > 200000 maximum",
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
    "the request exceeds the available context size, try increasing it",
]


async def scenario_retry_after_as_an_http_date(kit: Kit, server: LoopbackServer) -> None:
    import email.utils
    import time

    reply = kit.error_body(429, "rate limited")
    reply.headers["Retry-After"] = email.utils.formatdate(time.time() + 600, usegmt=True)
    server.add(reply)
    with pytest.raises(APIError) as ei:
        await drain(kit.make(server.url), request(kit))
    assert ei.value.status == 429
    assert ei.value.retry_after is not None and 300 <= ei.value.retry_after <= 601


async def scenario_context_overflow_in_any_vendors_words(kit: Kit, server: LoopbackServer):
    from larik.llm.errors import ContextOverflow

    provider = kit.make(server.url)
    for text in OVERFLOW_TEXTS:
        server.add(kit.error_body(400, text))
        with pytest.raises(ContextOverflow):
            await drain(provider, request(kit))


async def scenario_a_malformed_stored_tool_call_is_sent_as_written(kit, server) -> None:
    server.add(kit.text_reply(["ok"], Usage(input=1, output=1)))
    history = [
        Message.user("read it"),
        Message(
            role="assistant",
            model=kit.model,
            blocks=[Block.tool_use("call_1", "read_file", '{"path": "a.py"')],
        ),
        Message(role="user", blocks=[Block.tool_result("call_1", "bad JSON", is_error=True)]),
    ]
    await drain(kit.make(server.url), request(kit, history))
    body = server.requests[-1].body
    assert b'\\"path\\": \\"a.py\\"' in body, "the text the model wrote goes back as written"


SCENARIOS += [
    scenario_retry_after_as_an_http_date,
    scenario_context_overflow_in_any_vendors_words,
    scenario_a_malformed_stored_tool_call_is_sent_as_written,
]


async def scenario_a_key_echoed_in_an_error_body_is_masked(kit: Kit, server: LoopbackServer):
    """Whatever its format: a server repeating the key back never gets it into a message."""
    server.add(kit.error_body(400, "Incorrect API key provided: dummy-key (see dummy-key)"))
    with pytest.raises(APIError) as ei:
        await drain(kit.make(server.url), request(kit))
    assert "dummy-key" not in str(ei.value) and "***" in str(ei.value)


SCENARIOS.append(scenario_a_key_echoed_in_an_error_body_is_masked)


def _with_malformed_second_event(reply: Reply) -> Reply:
    """``reply`` with its second event's data replaced by ``{not json`` (SSE or NDJSON)."""
    data = b"".join(reply.chunks())
    sep = b"\r\n\r\n" if b"\r\n\r\n" in data else (b"\n\n" if b"\n\n" in data else b"\n")
    parts = [p for p in data.split(sep) if p.strip()]
    second = parts[1]
    if b"data:" in second:  # SSE: keep the event name, break its data
        head = second[: second.index(b"data:")]
        parts[1] = head + b"data: {not json"
    else:  # NDJSON
        parts[1] = b"{not json"
    reply.body = sep.join(parts) + sep
    return reply


async def scenario_a_malformed_event_is_a_retryable_provider_error(kit: Kit, server):
    """``data: {not json`` mid-stream is a provider error that retry and fallback act on,
    never an internal error (a JSONDecodeError escaping the adapter)."""
    reply = kit.text_reply(["one ", "two ", "three"], Usage(input=1, output=1))
    server.add(_with_malformed_second_event(reply))
    with pytest.raises(APIError) as ei:
        await drain(kit.make(server.url), request(kit))
    assert ei.value.status == 0 and ei.value.retryable
    assert "malformed" in str(ei.value)


SCENARIOS.append(scenario_a_malformed_event_is_a_retryable_provider_error)


# -- a stream cut before its end (issue 42 item 6) -----------------------------------------
# Each runs for every way a body can end early (tests/loopback.py ENDS): a close-delimited
# body, a chunked body ended cleanly, a reset mid-chunk.


def cut(kit: Kit, reply: Reply, end: str, before: bytes = b"") -> Reply:
    """``reply`` cut short of its end (``before``: short of its first event holding these
    bytes), the body ended the ``end`` way; a reset comes halfway through the next event."""
    head, rest = split_before(reply, lambda e: before in e) if before else kit.unended(reply)
    following = events_of(rest)[:1] or [b"data: {}\n\n"]
    return Reply(body=[head, *following] if end == "reset" else head, end=end)


async def scenario_a_stream_cut_before_its_end_is_a_cut_reply(kit, server, end: str):
    """Text shown, then no end: CutReply, no ``done`` (so none of its calls can run)."""
    reply = kit.text_reply(["one ", "two ", "three"], Usage(input=1, output=1))
    server.add(cut(kit, reply, end))
    events: list[StreamEvent] = []
    with pytest.raises(CutReply) as ei:
        async for ev in kit.make(server.url).stream(request(kit)):
            events.append(ev)
    assert not [e for e in events if e.type is EventType.DONE]
    assert ei.value.retryable and ei.value.status == 0
    assert "the reply was cut off" in str(ei.value) and "\n" not in str(ei.value)
    if end != "reset":  # a reset may take what was on its way with it
        assert "".join(e.text for e in events if e.type is EventType.TEXT_DELTA).startswith("one")


async def scenario_a_tool_call_cut_before_its_end_never_reaches_done(kit, server, end: str):
    reply = kit.tool_call_reply("call_cut", "read_file", ['{"path": ', '"src/app.py"}'])
    server.add(cut(kit, reply, end))
    events: list[StreamEvent] = []
    with pytest.raises(CutReply):
        async for ev in kit.make(server.url).stream(request(kit)):
            events.append(ev)
    assert not [e for e in events if e.type is EventType.DONE]


async def scenario_a_stream_cut_before_any_output_is_sent_again(kit, server, end: str):
    """Nothing shown yet: the retry layer sends it again, and the second answer is the reply;
    the notice says the first was cut."""
    from larik.llm.retry import RetryingProvider

    async def no_wait(_: float) -> None:
        pass

    whole = kit.text_reply(["Hello", " again"], Usage(input=1, output=1))
    first = cut(kit, kit.text_reply(["Hello", " again"], Usage(input=1, output=1)), end, b"Hello")
    server.add(first, whole)
    provider = RetryingProvider(kit.make(server.url), sleep=no_wait)
    events = await drain(provider, request(kit))
    notices = [e.text for e in events if e.type is EventType.NOTICE]
    assert len(notices) == 1 and "the reply was cut off" in notices[0], notices
    assert only_done(events).message.text() == "Hello again"
    assert len([r for r in server.requests if r.method == "POST"]) == 2


CUT_SCENARIOS = [
    scenario_a_stream_cut_before_its_end_is_a_cut_reply,
    scenario_a_tool_call_cut_before_its_end_never_reaches_done,
    scenario_a_stream_cut_before_any_output_is_sent_again,
]
