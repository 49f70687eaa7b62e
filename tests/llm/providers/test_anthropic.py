"""Anthropic adapter: real recordings, the request golden, and the adapter's own rules.

Everything goes through the loopback server: the adapter's real HTTP request is asserted on the
server side, canned or recorded SSE is streamed back.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from larik.config import Config
from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import APIError, ContextOverflow, MissingKeyError
from larik.llm.providers.anthropic import AnthropicProvider
from larik.llm.providers.anthropic_convert import (
    BUDGETS,
    build_params,
    default_max_tokens,
    plan_thinking,
    thinking_style,
)
from larik.llm.types import Block, EventType, Message, Request, StopReason, StreamEvent, Usage
from tests.llm.helpers import endpoint
from tests.llm.providers import conformance
from tests.llm.providers.kits.anthropic import (
    MODEL,
    block_start,
    block_stop,
    delta,
    event,
    message_end,
    message_start,
    sse,
    text_block,
)
from tests.loopback import LoopbackServer, Reply, wire_case
from tests.patience import WAIT

API = "anthropic-messages"
GOLDEN = Path(__file__).parent / "golden" / "anthropic_request.json"
PNG = conformance.PNG_1PX


def provider(
    server: LoopbackServer, headers: Any = None, name: str = "anthropic", **kw: Any
) -> AnthropicProvider:
    return AnthropicProvider(endpoint("anthropic", server.url, name=name, headers=headers), **kw)


def req(model: str = MODEL, messages: list[Message] | None = None, **kw: Any) -> Request:
    kw.setdefault("system", ["You are a test."])
    kw.setdefault("max_tokens", 1024)
    return Request(model=model, messages=messages or [Message.user("hello")], **kw)


async def drain(p: AnthropicProvider, request: Request) -> list[StreamEvent]:
    return [ev async for ev in p.stream(request)]


def done_of(events: list[StreamEvent]) -> StreamEvent:
    dones = [e for e in events if e.type is EventType.DONE]
    assert len(dones) == 1 and events[-1] is dones[0]
    return dones[0]


def texts(events: list[StreamEvent], kind: EventType) -> str:
    return "".join(e.text for e in events if e.type is kind)


def ok_reply(text: str = "ok") -> Reply:
    return sse(message_start(), text_block(0, [text]), message_end("end_turn"))


def params(request: Request, **kw: Any) -> dict[str, Any]:
    kw.setdefault("thinking", None)
    kw.setdefault("prompt_cache", True)
    return build_params(request, "anthropic", **kw)[0]


def recorded_deltas(case_name: str, field: str) -> list[str]:
    """Values of ``delta.<field>`` in a recording, read straight from its SSE data lines."""
    out = []
    for line in wire_case(API, case_name).response.decode().splitlines():
        if line.startswith("data:"):
            data = json.loads(line[5:])
            if data.get("type") == "content_block_delta" and field in data["delta"]:
                out.append(data["delta"][field])
    return out


async def replay(server: LoopbackServer, name: str, model: str = MODEL, **kw: Any):
    server.add(wire_case(API, name).reply())
    return await drain(provider(server), req(model, **kw))


# -- real recordings (../shared/wire/anthropic-messages), one test per case ---------------------


async def test_wire_text_stream(wire_dir, loopback):
    events = await replay(loopback, "text_stream", "claude-sonnet-4-0")
    assert texts(events, EventType.TEXT_DELTA) == "4200 + 42 = 4242"
    done = done_of(events)
    assert done.message.text() == "4200 + 42 = 4242"
    assert done.message.model == "claude-sonnet-4-0"
    assert done.usage == Usage(input=17, output=15)
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_thinking_stream(wire_dir, loopback):
    events = await replay(loopback, "thinking_stream", "claude-sonnet-4-0")
    thinking = "".join(recorded_deltas("thinking_stream", "thinking"))
    [signature] = recorded_deltas("thinking_stream", "signature")
    assert thinking and texts(events, EventType.THINKING_DELTA) == thinking
    done = done_of(events)
    [block] = [b for b in done.message.blocks if b.type == "thinking"]
    assert block.text == thinking
    assert block.signature == signature
    assert block.provider == "anthropic" and not block.redacted
    assert done.message.text() == texts(events, EventType.TEXT_DELTA) != ""
    assert done.usage == Usage(input=43, output=282)
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_thinking_stream_claude37(wire_dir, loopback):
    model = "claude-3-7-sonnet-20250219"
    events = await replay(loopback, "thinking_stream_claude37", model, effort="low")
    [signature] = recorded_deltas("thinking_stream_claude37", "signature")
    done = done_of(events)
    [block] = [b for b in done.message.blocks if b.type == "thinking"]
    assert block.signature == signature
    assert block.text == texts(events, EventType.THINKING_DELTA)
    assert "appears 3 times" in block.text
    assert done.message.text() == texts(events, EventType.TEXT_DELTA) != ""
    assert done.usage.input == 52 and done.usage.cache_read == 0
    assert done.stop_reason is StopReason.END_TURN
    sent = loopback.requests[-1].json()
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": BUDGETS["low"]}


async def test_wire_tool_use_parallel_stream(wire_dir, loopback):
    events = await replay(loopback, "tool_use_parallel_stream", "claude-sonnet-4-0")
    starts = [(e.text, e.id) for e in events if e.type is EventType.TOOL_USE_START]
    assert starts == [
        ("secret_retrieval_tool", "toolu_015cUijgET79LXjgeYQerN2h"),
        ("secret_retrieval_tool", "toolu_01XZTimPexA7h3EVKesnKt5T"),
    ]
    done = done_of(events)
    calls = done.message.tool_uses()
    # the arguments are the exact JSON text the model streamed
    assert [c.input for c in calls] == ['{"password": "mellon"}', '{"password": "radiance"}']
    assert [c.id for c in calls] == [s[1] for s in starts]
    assert done.message.blocks[0].type == "text" and done.message.text()
    assert done.usage == Usage(input=416, output=109)
    assert done.stop_reason is StopReason.TOOL_USE


async def test_wire_tool_result_followup_stream(wire_dir, loopback):
    history = [
        Message.user("Please retrieve the secrets"),
        Message(
            role="assistant",
            model="claude-sonnet-4-0",
            blocks=[
                Block.tool_use("toolu_015", "secret_retrieval_tool", '{"password": "mellon"}'),
                Block.tool_use("toolu_01X", "secret_retrieval_tool", '{"password": "radiance"}'),
            ],
        ),
        Message(
            role="user",
            blocks=[
                Block.tool_result("toolu_015", "Welcome to Moria!"),
                Block.tool_result("toolu_01X", "Life before Death"),
            ],
        ),
    ]
    events = await replay(
        loopback, "tool_result_followup_stream", "claude-sonnet-4-0", messages=history
    )
    done = done_of(events)
    assert done.message.text() == texts(events, EventType.TEXT_DELTA)
    assert "Welcome to Moria!" in done.message.text()
    assert done.usage == Usage(input=602, output=52)
    assert done.stop_reason is StopReason.END_TURN
    results = loopback.requests[-1].json()["messages"][-1]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_015", "toolu_01X"]


async def test_wire_redacted_thinking_stream(wire_dir, loopback):
    events = await replay(loopback, "redacted_thinking_stream", "claude-sonnet-4-5-20250929")
    assert texts(events, EventType.THINKING_DELTA) == ""
    done = done_of(events)
    redacted = [b for b in done.message.blocks if b.type == "thinking"]
    assert len(redacted) == 2
    assert all(b.redacted and b.provider == "anthropic" for b in redacted)
    body = wire_case(API, "redacted_thinking_stream").response.decode()
    assert redacted[0].text.startswith("EqkECkYIBxgCKkA8") and redacted[0].text in body
    assert redacted[1].text.startswith("EtgBCkYIBxgCKkDQ") and redacted[1].text in body
    assert done.message.text().startswith("I notice that you've sent what")
    assert done.usage == Usage(input=92, output=189)
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_cache_read_stream(wire_dir, loopback):
    events = await replay(loopback, "cache_read_stream", "claude-3-5-sonnet-20240620")
    done = done_of(events)
    assert done.usage == Usage(input=4, output=221, cache_read=1165, cache_write=0)
    assert done.message.text() == texts(events, EventType.TEXT_DELTA) != ""
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_max_tokens_stream(wire_dir, loopback):
    events = await replay(loopback, "max_tokens_stream", "claude-sonnet-4-0")
    done = done_of(events)
    assert done.stop_reason is StopReason.MAX_TOKENS
    assert done.message.text().endswith("8. Delaware\n9")
    assert done.usage == Usage(input=15, output=50)


async def test_wire_error_401_auth(wire_dir, loopback):
    with pytest.raises(APIError) as ei:
        await replay(loopback, "error_401_auth", "claude-sonnet-4-0")
    err = ei.value
    assert err.status == 401 and not err.retryable
    assert "ANTHROPIC_API_KEY" in str(err) and "invalid x-api-key" in str(err)
    assert "dummy-key" not in str(err)


async def test_wire_error_400_invalid_effort(wire_dir, loopback):
    with pytest.raises(APIError) as ei:
        await replay(loopback, "error_400_invalid_effort", "claude-opus-4-6", effort="max")
    err = ei.value
    assert not isinstance(err, ContextOverflow)
    assert err.status == 400 and not err.retryable
    assert "does not support effort level" in str(err)
    assert "thinking = false" in str(err) and "claude-opus-4-6" in str(err)
    assert loopback.requests[-1].json()["output_config"] == {"effort": "max"}


# -- the request golden -------------------------------------------------------------------------


async def test_request_golden(loopback):
    loopback.add(ok_reply())
    await drain(provider(loopback), conformance.canonical_request(MODEL, "anthropic"))
    assert loopback.requests[-1].path == "/v1/messages"
    assert loopback.requests[-1].json() == json.loads(GOLDEN.read_text())


# -- thinking and replay ------------------------------------------------------------------------


def _reasoning_history(model: str) -> list[Message]:
    return [
        Message.user("hi"),
        Message(
            role="assistant",
            model=model,
            blocks=[
                Block.thinking_block("plain thoughts", signature="sig/+==", provider="anthropic"),
                Block.thinking_block("REDACTED-DATA+/=", provider="anthropic", redacted=True),
                Block.text_block("answer"),
            ],
        ),
        Message.user("more"),
    ]


def test_thinking_and_redacted_thinking_are_replayed_verbatim_to_the_same_model():
    sent = params(req(MODEL, _reasoning_history(MODEL)))["messages"][1]["content"]
    assert sent[0] == {"type": "thinking", "thinking": "plain thoughts", "signature": "sig/+=="}
    assert sent[1] == {"type": "redacted_thinking", "data": "REDACTED-DATA+/="}
    assert sent[2] == {"type": "text", "text": "answer"}


def test_thinking_of_another_model_or_provider_is_not_sent():
    other_model = params(req(MODEL, _reasoning_history("claude-opus-4-6")))["messages"][1]
    assert other_model["content"] == [{"type": "text", "text": "answer"}]
    history = _reasoning_history(MODEL)
    history[1].blocks[0].provider = "gemini"
    history[1].blocks[1].provider = "openai"
    assert params(req(MODEL, history))["messages"][1]["content"] == [
        {"type": "text", "text": "answer"}
    ]


def test_unsigned_thinking_is_not_sent():
    msg = Message(
        role="assistant",
        model=MODEL,
        blocks=[
            Block.thinking_block("half a thought", provider="anthropic"),
            Block.text_block("x"),
        ],
    )
    sent = params(req(MODEL, [Message.user("a"), msg, Message.user("b")]))["messages"][1]
    assert sent["content"] == [{"type": "text", "text": "x"}]


# -- effort ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "model,style",
    [
        ("claude-opus-4-6", "adaptive"),
        ("claude-sonnet-4-6", "adaptive"),
        ("claude-opus-4-7", "adaptive"),
        ("claude-sonnet-5", "adaptive"),
        ("claude-fable-5-2", "adaptive"),
        ("claude-mythos-preview", "adaptive"),
        ("claude-3-7-sonnet-20250219", "budget"),
        ("claude-sonnet-4-0", "budget"),
        ("claude-sonnet-4-20250514", "budget"),
        ("claude-sonnet-4-5-20250929", "budget"),
        ("claude-opus-4-1-20250805", "budget"),
        ("claude-opus-4-5", "budget"),
        ("claude-haiku-4-5", "budget"),
        ("glm-4.6", "budget"),
        ("claude-3-5-sonnet-20240620", "none"),
        ("claude-3-5-haiku-latest", "none"),
        ("claude-3-opus-20240229", "none"),
    ],
)
def test_thinking_style_is_chosen_by_model_name(model, style):
    assert thinking_style(model) == style


@pytest.mark.parametrize("effort", ["low", "medium", "high", "max"])
async def test_effort_is_adaptive_thinking_effort_on_new_models(loopback, effort):
    loopback.add(ok_reply())
    await drain(provider(loopback), req("claude-opus-4-6", effort=effort, max_tokens=1000))
    sent = loopback.requests[-1].json()
    assert sent["thinking"] == {"type": "adaptive"}
    assert sent["output_config"] == {"effort": effort}
    assert sent["max_tokens"] == 1000


@pytest.mark.parametrize(
    "model", ["claude-3-7-sonnet-20250219", "claude-sonnet-4-5", "claude-haiku-4-5"]
)
@pytest.mark.parametrize("effort", ["low", "medium", "high", "max"])
def test_effort_is_a_fixed_thinking_budget_on_older_models(model, effort):
    sent = params(req(model, effort=effort, max_tokens=64000))
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": BUDGETS[effort]}
    assert "output_config" not in sent
    assert BUDGETS == {"low": 2048, "medium": 8192, "high": 16384, "max": 32000}


@pytest.mark.parametrize(
    "asked,expected", [(1024, 2048 + 1024), (2048, 4096), (3000, 3000), (0, 32000)]
)
def test_max_tokens_always_exceeds_the_thinking_budget(asked, expected):
    sent = params(req("claude-sonnet-4-5", effort="low", max_tokens=asked))
    assert sent["max_tokens"] == expected > sent["thinking"]["budget_tokens"]


def test_budget_is_clamped_to_the_model_output_cap():
    plan = plan_thinking("claude-opus-4-1-20250805", "max", 0, None)
    assert plan.max_tokens == 32000
    assert plan.thinking == {"type": "enabled", "budget_tokens": 32000 - 4096}


@pytest.mark.parametrize(
    "model,expected",
    [
        ("claude-opus-4-6", 32000),
        ("claude-sonnet-4-5", 32000),
        ("claude-3-7-sonnet-latest", 32000),
        ("claude-3-5-sonnet-20240620", 8192),
        ("claude-3-haiku-20240307", 4096),
        ("kimi-k2", 8192),
    ],
)
def test_default_max_tokens_is_chosen_per_model(model, expected):
    assert default_max_tokens(model) == expected
    assert params(req(model, max_tokens=0))["max_tokens"] == expected


@pytest.mark.parametrize("model", ["claude-opus-4-6", "claude-sonnet-4-5"])
def test_empty_effort_sends_no_thinking(model):
    sent = params(req(model, effort=""))
    assert "thinking" not in sent and "output_config" not in sent


@pytest.mark.parametrize("model", ["claude-opus-4-6", "claude-sonnet-4-5"])
def test_thinking_false_sends_neither_thinking_nor_effort(model):
    sent = params(req(model, effort="high"), thinking=False)
    assert "thinking" not in sent and "output_config" not in sent


def test_thinking_true_turns_thinking_on_at_the_default_effort():
    assert params(req("claude-opus-4-6"), thinking=True)["thinking"] == {"type": "adaptive"}
    older = params(req("claude-sonnet-4-5"), thinking=True)["thinking"]
    assert older == {"type": "enabled", "budget_tokens": BUDGETS["medium"]}


def test_models_without_thinking_get_no_thinking_for_an_effort():
    sent = params(req("claude-3-5-sonnet-20240620", effort="high"))
    assert "thinking" not in sent and "output_config" not in sent


# -- images ----------------------------------------------------------------------------------------


def test_user_images_are_base64_image_blocks():
    msg = Message(role="user", blocks=[Block.text_block("look"), Block.image("image/png", PNG)])
    content = params(req(messages=[msg]), prompt_cache=False)["messages"][0]["content"]
    assert content[1] == {
        "type": "image",
        "source": {"type": "base64", "media_type": "image/png", "data": PNG},
    }


def test_tool_result_images_go_inside_the_tool_result():
    history = [
        Message.user("shot"),
        Message(role="assistant", model=MODEL, blocks=[Block.tool_use("c1", "screenshot", "{}")]),
        Message(
            role="user",
            blocks=[
                Block.tool_result("c1", "captured", images=[Block.image("image/jpeg", "QUJD")]),
                Block.tool_result("c2", "boom", is_error=True),
            ],
        ),
    ]
    sent = params(req(messages=history), prompt_cache=False)["messages"]
    assert len(sent) == 3, "no extra message for the images"
    assert sent[2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "c1",
        "content": [
            {"type": "text", "text": "captured"},
            {
                "type": "image",
                "source": {"type": "base64", "media_type": "image/jpeg", "data": "QUJD"},
            },
        ],
    }
    assert sent[2]["content"][1] == {
        "type": "tool_result",
        "tool_use_id": "c2",
        "content": "boom",
        "is_error": True,
    }


# -- server-side blocks as opaque ------------------------------------------------------------------

SERVER_USE = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}}
SEARCH_RESULT = {
    "type": "web_search_tool_result",
    "tool_use_id": "srvtoolu_01",
    "content": [
        {
            "type": "web_search_result",
            "title": "Larik — ü",
            "url": "https://example.org/larik",
            "encrypted_content": "EqgfCioIARgB+/==",
            "page_age": None,
        }
    ],
}


NEW_KIND = {"type": "brand_new_block", "payload": {"b": [1, None], "a": "x"}}


def _server_block_reply() -> Reply:
    return sse(
        message_start(),
        block_start(0, SERVER_USE),
        delta(0, {"type": "input_json_delta", "partial_json": '{"query": "lar'}),
        delta(0, {"type": "input_json_delta", "partial_json": 'ik"}'}),
        block_stop(0),
        block_start(1, SEARCH_RESULT),
        block_stop(1),
        block_start(2, NEW_KIND),
        block_stop(2),
        text_block(3, ["Found it."]),
        message_end("end_turn"),
    )


async def test_server_side_blocks_are_kept_as_opaque_with_their_json(loopback):
    loopback.add(_server_block_reply())
    done = done_of(await drain(provider(loopback), req()))
    use, result, unknown, text = done.message.blocks
    assert [b.type for b in done.message.blocks] == ["opaque", "opaque", "opaque", "text"]
    assert use.provider == result.provider == unknown.provider == "anthropic"
    assert json.loads(use.raw) == {**SERVER_USE, "input": {"query": "larik"}}
    assert json.loads(result.raw) == SEARCH_RESULT
    assert unknown.raw == json.dumps(NEW_KIND, separators=(",", ":")), "exact, in wire order"
    assert done.message.tool_uses() == [], "server tools are not client tool calls"


async def test_opaque_blocks_are_sent_back_verbatim_from_raw(loopback):
    p = provider(loopback)
    loopback.add(_server_block_reply())
    first = done_of(await drain(p, req())).message
    loopback.add(ok_reply())
    await drain(p, req(messages=[Message.user("hello"), first, Message.user("thanks")]))
    body = loopback.requests[-1].body
    for block in first.blocks[:3]:
        assert block.raw.encode() in body
    foreign = first.model_copy(update={"model": "claude-opus-4-6"})
    loopback.add(ok_reply())
    await drain(p, req(messages=[Message.user("hello"), foreign, Message.user("thanks")]))
    assert b"srvtoolu_01" not in loopback.requests[-1].body


# -- prompt caching --------------------------------------------------------------------------------


async def test_cache_breakpoints_on_last_system_block_and_latest_turn(loopback):
    loopback.add(ok_reply())
    history = [
        Message.user("first"),
        Message(role="assistant", model=MODEL, blocks=[Block.text_block("reply")]),
        Message(role="user", blocks=[Block.text_block("a"), Block.text_block("b")]),
    ]
    await drain(provider(loopback), req(messages=history, system=["stable", "per-session"]))
    sent = loopback.requests[-1].json()
    assert sent["system"] == [
        {"type": "text", "text": "stable"},
        {"type": "text", "text": "per-session", "cache_control": {"type": "ephemeral"}},
    ]
    marked = [
        (i, j)
        for i, m in enumerate(sent["messages"])
        for j, b in enumerate(m["content"])
        if "cache_control" in b
    ]
    assert marked == [(2, 1)]


def test_the_breakpoint_skips_thinking_blocks():
    msg = Message(
        role="assistant",
        model=MODEL,
        blocks=[
            Block.text_block("so far"),
            Block.thinking_block("t", signature="s", provider="anthropic"),
        ],
    )
    content = params(req(messages=[Message.user("q"), msg]))["messages"][-1]["content"]
    assert content[0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in content[1]


async def test_system_blocks_are_built_fresh_per_call(loopback):
    p = provider(loopback)
    request = req(system=["one", "two"], messages=[Message.user("q")])
    before = request.model_dump_json()
    for _ in range(2):
        loopback.add(ok_reply())
        await drain(p, request)
    assert request.model_dump_json() == before, "the request was mutated"
    first, second = (r.json() for r in loopback.requests)
    assert first == second
    assert [("cache_control" in b) for b in second["system"]] == [False, True]


async def test_prompt_cache_false_sends_no_cache_control(loopback):
    loopback.add(ok_reply())
    await drain(provider(loopback, prompt_cache=False), req(system=["a", "b"]))
    assert b"cache_control" not in loopback.requests[-1].body


async def test_cache_reads_and_writes_are_reported_as_usage_tiers(loopback):
    usage = Usage(input=12, cache_read=3000, cache_write=450)
    loopback.add(sse(message_start(usage), text_block(0, ["x"]), message_end("end_turn", 9)))
    done = done_of(await drain(provider(loopback), req()))
    assert done.usage == Usage(input=12, output=9, cache_read=3000, cache_write=450)


# -- stop reasons and errors -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "wire,stop",
    [
        ("end_turn", StopReason.END_TURN),
        ("tool_use", StopReason.TOOL_USE),
        ("max_tokens", StopReason.MAX_TOKENS),
        ("stop_sequence", StopReason.STOP_SEQUENCE),
        ("refusal", StopReason.REFUSAL),
        ("pause_turn", StopReason.PAUSE_TURN),
        ("model_context_window_exceeded", StopReason.MAX_TOKENS),
    ],
)
async def test_stop_reasons_are_mapped(loopback, wire, stop):
    loopback.add(sse(message_start(), text_block(0, ["x"]), message_end(wire)))
    assert done_of(await drain(provider(loopback), req())).stop_reason is stop


@pytest.mark.parametrize("kind,status", [("overloaded_error", 529), ("api_error", 500)])
async def test_in_stream_error_event_is_a_retryable_api_error(loopback, kind, status):
    loopback.add(
        sse(
            message_start(),
            text_block(0, ["par"]),
            event({"type": "error", "error": {"type": kind, "message": "Overloaded"}}),
        )
    )
    events: list[StreamEvent] = []
    with pytest.raises(APIError) as ei:
        async for ev in provider(loopback).stream(req()):
            events.append(ev)
    assert ei.value.status == status and ei.value.retryable
    assert texts(events, EventType.TEXT_DELTA) == "par"
    assert not [e for e in events if e.type is EventType.DONE]


async def test_prompt_too_long_is_a_context_overflow(loopback):
    body = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum",
        },
    }
    loopback.add(Reply(status=400, body=json.dumps(body), content_type="application/json"))
    with pytest.raises(ContextOverflow) as ei:
        await drain(provider(loopback), req(effort="high"))
    assert ei.value.status == 400 and not ei.value.retryable
    assert "thinking = false" not in str(ei.value)


def _bad_request() -> Reply:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": "bad thing"}}
    return Reply(status=400, body=json.dumps(body), content_type="application/json")


async def test_a_400_while_thinking_says_how_to_turn_thinking_off(loopback):
    loopback.add(_bad_request())
    with pytest.raises(APIError) as ei:
        await drain(provider(loopback, name="claude-proxy"), req("claude-sonnet-4-5", effort="low"))
    msg = str(ei.value)
    assert "bad thing" in msg and "claude-sonnet-4-5" in msg
    assert (
        "thinking = false" in msg
        and "[providers.claude-proxy.options]" in msg
        and 'effort ""' in msg
    )


async def test_a_400_without_thinking_has_no_thinking_hint(loopback):
    loopback.add(_bad_request())
    with pytest.raises(APIError) as ei:
        await drain(provider(loopback), req(effort=""))
    assert "thinking" not in str(ei.value)


async def test_sdk_retries_are_off(loopback):
    loopback.add(
        Reply(
            status=529,
            body='{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
            content_type="application/json",
        )
    )
    with pytest.raises(APIError) as ei:
        await drain(provider(loopback), req())
    assert ei.value.status == 529 and ei.value.retryable
    assert len(loopback.requests) == 1


async def test_connection_refused_is_a_retryable_transport_error():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = AnthropicProvider(endpoint("anthropic", f"http://127.0.0.1:{port}"))
    with pytest.raises(APIError) as ei:
        await drain(p, req())
    assert ei.value.status == 0 and ei.value.retryable


async def test_malformed_event_data_is_a_retryable_api_error(loopback):
    loopback.add(sse(message_start(), "event: content_block_start\r\ndata: {not json\r\n\r\n"))
    with pytest.raises(APIError) as ei:
        await drain(provider(loopback), req())
    assert ei.value.status == 0 and ei.value.retryable
    assert "malformed" in str(ei.value)


async def test_a_stream_without_message_stop_fails(loopback):
    loopback.add(sse(message_start(), text_block(0, ["cut"])))
    with pytest.raises(APIError) as ei:
        await drain(provider(loopback), req())
    assert ei.value.status == 0 and ei.value.retryable


async def test_cancelling_the_consumer_task_closes_the_request(loopback):
    reply = sse(message_start(), text_block(0, ["first", "second"]), message_end("end_turn"))
    reply.body = [p + b"\r\n\r\n" for p in reply.chunks()[0].split(b"\r\n\r\n") if p]
    reply.stall_after = 2
    loopback.add(reply)
    first_delta = asyncio.Event()

    async def consume() -> None:
        async for ev in provider(loopback).stream(req()):
            if ev.type is EventType.TEXT_DELTA:
                first_delta.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_delta.wait(), WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(loopback.wait_disconnect)


# -- keys, base URL, headers, lazy import ----------------------------------------------------------


async def test_api_key_env_names_another_env_var(loopback, monkeypatch):
    config = Config(
        providers={
            "proxy": {"type": "anthropic", "base_url": loopback.url, "api_key_env": "PROXY_KEY"}
        }
    )
    monkeypatch.setenv("PROXY_KEY", "proxy-key-1")
    p = AnthropicProvider(resolve_endpoint("proxy", config))
    loopback.add(_unauthorized())
    with pytest.raises(APIError) as ei:
        await drain(p, req())
    assert "proxy-key-1" in loopback.requests[-1].headers["authorization"]
    assert "PROXY_KEY" in str(ei.value) and "proxy-key-1" not in str(ei.value)
    monkeypatch.delenv("PROXY_KEY")
    with pytest.raises(MissingKeyError, match="PROXY_KEY"):
        await drain(AnthropicProvider(resolve_endpoint("proxy", config)), req())


def _unauthorized() -> Reply:
    body = {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
    return Reply(status=401, body=json.dumps(body), content_type="application/json")


async def test_missing_key_names_the_env_var():
    with pytest.raises(MissingKeyError) as ei:
        await drain(AnthropicProvider(resolve_endpoint("anthropic")), req())
    assert "ANTHROPIC_API_KEY" in str(ei.value)


async def test_key_and_base_url_come_from_the_environment(loopback, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key-123")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", loopback.url)
    loopback.add(ok_reply())
    await drain(AnthropicProvider(resolve_endpoint("anthropic")), req())
    assert "env-key-123" in loopback.requests[-1].headers["authorization"]


async def test_custom_headers_are_sent(loopback):
    loopback.add(ok_reply())
    await drain(provider(loopback, headers={"X-Larik-Test": "1"}), req())
    assert loopback.requests[-1].headers["x-larik-test"] == "1"


def test_importing_the_adapter_does_not_import_the_sdk():
    code = (
        "import sys, larik.llm.providers.anthropic; "
        "print('anthropic' in sys.modules, 'httpx2' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
