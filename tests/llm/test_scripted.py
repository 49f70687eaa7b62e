"""The scripted provider plays turns offline and records what it was sent."""

import json

import pytest

from larik.llm.errors import APIError, ConfigError, ContextOverflow
from larik.llm.providers.scripted import ScriptedProvider
from larik.llm.types import EventType, Message, Request, StopReason
from tests.llm.helpers import collect


async def test_plays_thinking_text_and_tool_calls_in_small_deltas():
    p = ScriptedProvider(
        [
            {
                "thinking": "think " * 5,
                "text": "hello world, long enough",
                "tool_calls": [{"name": "write_file", "input": {"path": "a"}}],
            }
        ]
    )
    events = await collect(p, Request(model="m", messages=[Message.user("hi")]))
    kinds = [e.type for e in events]
    assert kinds.count(EventType.TEXT_DELTA) > 1 and EventType.THINKING_DELTA in kinds
    assert kinds.count(EventType.DONE) == 1 and kinds[-1] is EventType.DONE
    done = events[-1]
    assert done.stop_reason is StopReason.TOOL_USE
    assert [b.type for b in done.message.blocks] == ["thinking", "text", "tool_use"]
    assert done.message.blocks[2].input_dict() == {"path": "a"}
    assert done.message.model == "m"
    assert (
        "".join(e.text for e in events if e.type is EventType.TEXT_DELTA)
        == "hello world, long enough"
    )
    assert p.requests[0].messages[0].text() == "hi"


async def test_error_turns_raise_api_errors():
    p = ScriptedProvider(
        [
            {"error": {"status": 429, "message": "slow", "retry_after": 2}},
            {"error": {"status": "overflow"}},
        ]
    )
    with pytest.raises(APIError) as ei:
        await collect(p, Request(model="m"))
    assert ei.value.status == 429 and ei.value.retry_after == 2 and ei.value.retryable
    with pytest.raises(ContextOverflow):
        await collect(p, Request(model="m"))


async def test_running_past_the_last_turn_says_so():
    p = ScriptedProvider([{"text": "only"}])
    await collect(p, Request(model="m"))
    with pytest.raises(APIError, match="no turn 2"):
        await collect(p, Request(model="m"))


async def test_assert_complete_fails_on_unplayed_turns():
    p = ScriptedProvider([{"text": "a"}, {"text": "b"}])
    await collect(p, Request(model="m"))
    with pytest.raises(AssertionError):
        p.assert_complete()


def test_loads_a_script_file_and_reports_bad_ones(tmp_path):
    good = tmp_path / "s.json"
    good.write_text(json.dumps({"turns": [{"text": "hi", "stop_reason": "max_tokens"}]}))
    assert ScriptedProvider.from_file(good).turns[0].stop_reason is StopReason.MAX_TOKENS
    bad = tmp_path / "bad.json"
    bad.write_text('{"turns": [ {"text": 1, } ]}')
    with pytest.raises(ConfigError, match="bad.json:1"):
        ScriptedProvider.from_file(bad)
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"turns": [{"txet": "typo"}]}')
    with pytest.raises(ConfigError, match="turns.0.txet"):
        ScriptedProvider.from_file(wrong)


async def test_a_scripts_record_file_gets_each_request_as_one_json_line(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"turns": [{"text": "one"}, {"text": "two"}], "record": "r.jsonl"}))
    p = ScriptedProvider.from_file(path)
    for prompt in ("first", "second"):
        await collect(p, Request(model="m", messages=[Message.user(prompt)]))
    lines = (tmp_path / "r.jsonl").read_text().splitlines()
    sent = [Request.model_validate_json(line) for line in lines]
    assert [r.messages[-1].text() for r in sent] == ["first", "second"]


async def test_a_held_reply_stops_after_its_nth_piece_until_cancelled():
    import asyncio

    p = ScriptedProvider([{"text": "x" * 80, "hold": 3}])
    seen: list[str] = []
    three = asyncio.Event()

    async def consume() -> None:
        async for ev in p.stream(Request(model="m", messages=[Message.user("hi")])):
            seen.append(ev.type.value)
            if len(seen) == 3:
                three.set()

    task = asyncio.ensure_future(consume())
    await asyncio.wait_for(three.wait(), 60)
    for _ in range(50):  # many turns of the loop: the held reply does not go on by itself
        await asyncio.sleep(0)
    assert seen == ["text_delta"] * 3 and not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert len(seen) == 3
