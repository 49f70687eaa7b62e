"""A key the model echoes is streamed in tokens: no delta holds it whole, yet what the faces
get of the deltas has it as one ``***`` — and nothing else is lost or reordered."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from larik.llm import secrets
from larik.llm.masked import masked
from larik.llm.types import EventType, Message, StreamEvent

KEY = "sk-Zq8vT1mR4pW2xY7n"


@pytest.fixture(autouse=True)
def known_key():
    secrets.remember(KEY)
    yield
    secrets.forget_all()


async def _events(*events: StreamEvent) -> AsyncIterator[StreamEvent]:
    for ev in events:
        yield ev


async def _out(*events: StreamEvent) -> list[StreamEvent]:
    return [ev async for ev in masked(_events(*events))]


def _text(events: list[StreamEvent], kind: EventType = EventType.TEXT_DELTA) -> str:
    return "".join(ev.text for ev in events if ev.type is kind)


async def test_a_key_split_over_many_deltas_comes_out_masked():
    pieces = ["your key is ", KEY[:3], KEY[3:7], KEY[7:12], KEY[12:], " — keep it"]
    out = await _out(*(StreamEvent.text_delta(p) for p in pieces))
    assert _text(out) == "your key is *** — keep it"
    assert not any(KEY[:6] in ev.text for ev in out)


async def test_text_that_only_looks_like_a_keys_start_is_sent_whole_at_the_end():
    out = await _out(StreamEvent.text_delta("almost sk-Zq"), StreamEvent.text_delta("8v"))
    assert _text(out) == "almost sk-Zq8v"


async def test_what_was_kept_back_goes_before_the_next_event_of_another_kind():
    done = StreamEvent(EventType.DONE, message=Message(role="assistant", blocks=[]))
    out = await _out(
        StreamEvent.thinking_delta("thinking of sk-Z"),
        StreamEvent.text_delta("and sk-"),
        StreamEvent.tool_use_start("bash", "c1"),
        done,
    )
    kinds = [ev.type for ev in out]
    assert kinds[-2:] == [EventType.TOOL_USE_START, EventType.DONE]
    assert _text(out, EventType.THINKING_DELTA) == "thinking of sk-Z"
    assert _text(out) == "and sk-"
    assert out[-1] is done


async def test_thinking_is_masked_too():
    out = await _out(StreamEvent.thinking_delta(KEY[:9]), StreamEvent.thinking_delta(KEY[9:]))
    assert _text(out, EventType.THINKING_DELTA) == "***"
