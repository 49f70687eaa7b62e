"""A stream that ends without its end is a cut reply (issue 42 item 6), on real recordings.

Every streamed 200 recording in ../shared/wire (real bytes from the vendors' APIs and from
OpenAI-compatible servers) is sent again by a loopback server, cut just before the event that
ends it on its wire, and ended each way a body can end early (a close-delimited body, a chunked
body ended cleanly, a reset mid-chunk): the adapter that reads that wire raises CutReply and
writes no ``done``. The same recordings sent whole still end. ``ENDS`` (larik/llm/providers/
stream_end.py) names the end of exactly the wires recorded there. Every adapter *kind* has the
same cases on its kit's bodies in the conformance suite (``test_conformance_cut_stream``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from larik.llm.errors import CutReply
from larik.llm.providers.stream_end import ENDS
from larik.llm.types import EventType, Message, Request, StreamEvent, ToolSpec
from tests.llm.providers.conformance import events_of
from tests.llm.providers.kits import anthropic, gemini, ollama, openai_compat, openai_responses
from tests.loopback import ENDS as WAYS
from tests.loopback import WIRE, Reply, wire_case, wire_cases

_RESPONSE_ENDS = (
    b"event: response.completed",
    b"event: response.incomplete",
    b"event: response.failed",
)

#: wire -> (the kit whose adapter reads it, how the test finds the event that ends a reply)
WIRES: dict[str, tuple[Any, Callable[[bytes], bool]]] = {
    "anthropic-messages": (anthropic.KIT, lambda e: b"event: message_stop" in e),
    "openai-responses": (openai_responses.KIT, lambda e: e.startswith(_RESPONSE_ENDS)),
    "gemini": (gemini.KIT, lambda e: b'"finishReason"' in e),
    "ollama-chat": (ollama.KIT, lambda e: b'"done":true' in e.replace(b" ", b"")),
    "openai-chat": (
        openai_compat.KIT,
        lambda e: b'"finish_reason":"' in e.replace(b" ", b"") or b"[DONE]" in e,
    ),
}


def _streamed(api: str) -> list[str]:
    """The recordings of ``api`` that are a 200 event stream of a reply (not of an error:
    openrouter_midstream_error)."""
    out = []
    for name in wire_cases(api):
        meta = wire_case(api, name).meta
        if meta.get("status") == 200 and meta.get("response_streamed") and "error" not in name:
            out.append(name)
    return out


CASES = [(api, name) for api in WIRES for name in _streamed(api)]


def _request(kit: Any) -> Request:
    tool = ToolSpec(name="read_file", input_schema={"type": "object"})
    return Request(model=kit.model, messages=[Message.user("hi")], tools=[tool], max_tokens=64)


async def _drain(kit: Any, url: str) -> list[StreamEvent]:
    return [ev async for ev in kit.make(url).stream(_request(kit))]


def test_every_recorded_wire_has_its_end_named_once():
    recorded = {p.name for p in WIRE.iterdir() if p.is_dir()} if WIRE.is_dir() else set(WIRES)
    assert set(ENDS) == set(WIRES) == recorded
    assert all(end.says for end in ENDS.values())


@pytest.mark.parametrize("api,name", CASES, ids=[f"{a}/{n}" for a, n in CASES])
@pytest.mark.parametrize("way", WAYS)
async def test_a_recorded_stream_cut_before_its_end_is_a_cut_reply(api, name, way, loopback):
    kit, is_end = WIRES[api]
    case = wire_case(api, name)
    events = events_of(case.response)
    at = next(i for i, e in enumerate(events) if is_end(e))
    head = b"".join(events[:at])
    body: list[bytes | str] = [head, events[at]] if way == "reset" else [head]
    loopback.add(Reply(body=body, end=way, content_type=case.meta["content_type"]))
    seen: list[StreamEvent] = []
    with pytest.raises(CutReply) as ei:
        async for ev in kit.make(loopback.url).stream(_request(kit)):
            seen.append(ev)
    assert not [e for e in seen if e.type is EventType.DONE]
    assert ei.value.retryable and "the reply was cut off" in str(ei.value)
    # how the SDK saw it: a body that ends is a quiet end of its events, a reset an error
    assert ("connection broke" if way == "reset" else "stream stopped") in str(ei.value)


@pytest.mark.parametrize("api,name", CASES, ids=[f"{a}/{n}" for a, n in CASES])
@pytest.mark.parametrize("way", ["close", "chunked"])
async def test_a_recorded_stream_with_its_end_is_whole_however_its_body_ends(
    api, name, way, loopback
):
    kit, _ = WIRES[api]
    case = wire_case(api, name)
    reply = Reply(body=case.response, end=way, content_type=case.meta["content_type"])
    loopback.add(reply)
    events = await _drain(kit, loopback.url)
    assert events[-1].type is EventType.DONE
