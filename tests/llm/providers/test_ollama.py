"""The Ollama adapter: real recordings, the request golden, and each Ollama-specific rule."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from larik.config import Config
from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import APIError, ConfigError, ContextOverflow
from larik.llm.providers.ollama import TOOL_IMAGES_NOTE, OllamaProvider
from larik.llm.providers.ollama_host import parse_host
from larik.llm.types import Block, EventType, Message, Request, StopReason, StreamEvent
from tests.llm.helpers import endpoint
from tests.llm.providers.conformance import PNG_1PX, TOOLS, canonical_request
from tests.llm.providers.kits.ollama import chunk, final, ndjson
from tests.loopback import LoopbackServer, Reply, wire_case

GOLDEN = Path(__file__).parent / "golden" / "ollama_request.json"
WIRE = "ollama-chat"
MODEL = "qwen3:8b"


def make(
    server: LoopbackServer, api_key: str | None = "dummy-key", headers: Any = None, **kw: Any
) -> OllamaProvider:
    ep = endpoint("ollama", server.url, api_key, headers=headers, key_names=("OLLAMA_API_KEY",))
    return OllamaProvider(ep, **kw)


def show(
    context_length: int | None = 40960,
    capabilities: list[str] | None = None,
    thinking: dict[str, Any] | None = None,
) -> Reply:
    body: dict[str, Any] = {
        "details": {"family": "qwen3"},
        "capabilities": capabilities or ["completion", "tools", "thinking"],
    }
    if context_length is not None:
        body["model_info"] = {
            "general.architecture": "qwen3",
            "qwen3.context_length": context_length,
        }
    if thinking is not None:
        body["thinking"] = thinking
    return Reply(body=json.dumps(body), content_type="application/json; charset=utf-8")


def req(messages: list[Message] | None = None, **kw: Any) -> Request:
    kw.setdefault("model", MODEL)
    return Request(messages=messages or [Message.user("hello")], **kw)


async def run(provider: OllamaProvider, request: Request) -> list[StreamEvent]:
    return [ev async for ev in provider.stream(request)]


def chat_bodies(server: LoopbackServer) -> list[dict[str, Any]]:
    return [r.json() for r in server.requests if r.path == "/api/chat"]


def text_of(events: list[StreamEvent], kind: EventType) -> str:
    return "".join(e.text for e in events if e.type is kind)


# -- real recordings (../shared/wire/ollama-chat) ---------------------------------------------


async def test_wire_text_stream(loopback, wire_dir):
    loopback.add(wire_case(WIRE, "text_stream").reply())
    events = await run(make(loopback, num_ctx=8192), req(model="llama3"))
    deltas = [e.text for e in events if e.type is EventType.TEXT_DELTA]
    assert len(deltas) == 49
    done = events[-1]
    assert done.message.text() == "".join(deltas)
    assert done.message.text().startswith("Why did the OpenTelemetry agent go to therapy?\n\n")
    assert done.message.text().endswith("I hope it brought a smile to your face!)")
    assert (done.usage.input, done.usage.output) == (17, 50)
    assert done.stop_reason is StopReason.END_TURN
    assert done.message.model == "llama3"


async def test_wire_text_nonstream_single_object(loopback, wire_dir):
    loopback.add(wire_case(WIRE, "text_nonstream").reply())
    events = await run(make(loopback, num_ctx=8192), req(model="llama3"))
    done = events[-1]
    assert done.message.text().startswith("A joke about OpenTelemetry!\n\nWhy did")
    assert done.message.text().endswith("I hope it brings a smile to your face!)")
    assert text_of(events, EventType.TEXT_DELTA) == done.message.text()
    assert (done.usage.input, done.usage.output) == (17, 66)
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_tool_history_nonstream(loopback, wire_dir):
    case = wire_case(WIRE, "tool_history_nonstream")
    loopback.add(case.reply())
    history = [
        Message(
            role="assistant",
            model="llama3.1",
            blocks=[
                Block.tool_use("call_1", "get_current_weather", '{"location": "San Francisco"}')
            ],
        ),
        Message(
            role="user",
            blocks=[
                Block.tool_result("call_1", "The weather in San Francisco is 70 degrees and sunny.")
            ],
        ),
    ]
    done = (await run(make(loopback, num_ctx=8192), req(history, model="llama3.1")))[-1]
    assert done.message.text().startswith("This is a simple example, but in a real-world scenario")
    assert (done.usage.input, done.usage.output) == (44, 113)
    assert done.stop_reason is StopReason.END_TURN
    # the history goes out in the same shape the recorded request used
    sent = chat_bodies(loopback)[0]["messages"]
    recorded = case.request["messages"]
    assert [m["role"] for m in sent] == [m["role"] for m in recorded]
    assert sent[0]["tool_calls"][0]["function"] == recorded[0]["tool_calls"][0]["function"]
    assert sent[1]["content"] == recorded[1]["content"]
    assert sent[1]["tool_name"] == "get_current_weather"


async def test_wire_tool_calls_stream_qwen25(loopback, wire_dir):
    loopback.add(wire_case(WIRE, "tool_calls_stream_qwen25").reply())
    events = await run(make(loopback, num_ctx=8192), req(model="qwen2.5:7b", tools=TOOLS))
    starts = [(e.text, e.id) for e in events if e.type is EventType.TOOL_USE_START]
    assert starts == [
        ("get_current_weather", "call_dwjfhc0f"),
        ("get_history_weather", "call_e8ymdkla"),
    ]
    done = events[-1]
    calls = done.message.tool_uses()
    assert [c.id for c in calls] == ["call_dwjfhc0f", "call_e8ymdkla"]
    assert calls[0].input == '{"format": "celsius", "location": "北京"}'
    assert json.loads(calls[1].input) == {"format": "celsius", "location": "洛阳"}
    assert done.stop_reason is StopReason.TOOL_USE  # done_reason "stop" with tool calls
    assert (done.usage.input, done.usage.output) == (316, 56)


async def test_wire_thinking_stream_qwen3_split_mid_character(loopback, wire_dir):
    # 7-byte pieces split lines and multi-byte UTF-8 characters across reads
    loopback.add(wire_case(WIRE, "thinking_stream_qwen3_elided").reply(chunk_size=7))
    events = await run(make(loopback, num_ctx=8192), req(model="qwen3:1.7b"))
    assert text_of(events, EventType.THINKING_DELTA) == "嗯，我现在9。\n"
    assert text_of(events, EventType.TEXT_DELTA) == "要计算}\n$$"
    done = events[-1]
    thinking, text = done.message.blocks
    assert (thinking.type, thinking.text) == ("thinking", "嗯，我现在9。\n")
    assert text.text == "要计算}\n$$"
    assert (done.usage.input, done.usage.output) == (22, 1186)
    assert done.stop_reason is StopReason.END_TURN


# -- the request golden -------------------------------------------------------------------------


async def test_request_golden(loopback):
    loopback.route("/api/show", show(context_length=40960))
    loopback.add(ndjson(chunk("ok"), final()))
    await run(make(loopback), canonical_request(MODEL, "ollama"))
    assert loopback.requests[0].path == "/api/show"
    assert loopback.requests[0].json() == {"model": MODEL}
    assert chat_bodies(loopback) == [json.loads(GOLDEN.read_text())]


# -- messages ---------------------------------------------------------------------------------


async def test_thinking_block_has_provider_and_no_signature(loopback):
    loopback.add(ndjson(chunk(thinking="Hmm."), chunk("Yes."), final()))
    done = (await run(make(loopback, num_ctx=8192), req()))[-1]
    block = done.message.blocks[0]
    assert (block.type, block.text, block.provider, block.signature) == (
        "thinking",
        "Hmm.",
        "ollama",
        "",
    )


async def test_thinking_is_replayed_as_the_thinking_field_to_the_same_model_only(loopback):
    provider = make(loopback, num_ctx=8192)
    loopback.add(ndjson(chunk(thinking="Secret plan."), chunk("Answer."), final()))
    first = (await run(provider, req()))[-1].message
    for model in (MODEL, "llama3.2"):
        loopback.add(ndjson(chunk("ok"), final()))
        history = [Message.user("hello"), first, Message.user("more")]
        await run(provider, req(history, model=model))
    same, other = chat_bodies(loopback)[1:]
    assert same["messages"][1] == {
        "role": "assistant",
        "content": "Answer.",
        "thinking": "Secret plan.",
    }
    assert other["messages"][1] == {"role": "assistant", "content": "Answer."}


async def test_a_message_left_empty_by_the_replay_rule_is_not_sent(loopback):
    loopback.add(ndjson(chunk("ok"), final()))
    foreign = Message(
        role="assistant",
        model="claude-x",
        blocks=[Block.thinking_block("private", signature="s", provider="anthropic")],
    )
    await run(make(loopback, num_ctx=8192), req([Message.user("a"), foreign, Message.user("b")]))
    # the two user messages it stood between are one turn, as the agent would have sent them
    assert chat_bodies(loopback)[0]["messages"] == [{"role": "user", "content": "a\n\nb"}]


async def test_tool_calls_without_id_get_generated_unique_ids(loopback):
    calls = [
        {"function": {"name": "read_file", "arguments": {"path": "a.py"}}},
        {"function": {"name": "read_file", "arguments": {"path": "b.py"}}},
    ]
    loopback.add(ndjson(chunk(tool_calls=calls), final()))
    events = await run(make(loopback, num_ctx=8192), req())
    ids = [b.id for b in events[-1].message.tool_uses()]
    assert all(ids) and len(set(ids)) == 2
    assert [e.id for e in events if e.type is EventType.TOOL_USE_START] == ids


async def test_tool_arguments_object_is_stored_as_its_json_text(loopback):
    args = {"path": "src/ä.py", "lines": [1, 2], "opts": {"raw": True}}
    loopback.add(
        ndjson(chunk(tool_calls=[{"function": {"name": "f", "arguments": args}}]), final())
    )
    block = (await run(make(loopback, num_ctx=8192), req()))[-1].message.tool_uses()[0]
    assert block.input == json.dumps(args, ensure_ascii=False)


async def test_tool_results_are_tool_messages_named_after_their_call(loopback):
    loopback.add(ndjson(chunk("ok"), final()))
    history = [
        Message.user("go"),
        Message(
            role="assistant",
            model=MODEL,
            blocks=[
                Block.tool_use("c1", "read_file", '{"path": "a"}'),
                Block.tool_use("c2", "run", '{"cmd": "ls"}'),
            ],
        ),
        Message(
            role="user",
            blocks=[Block.tool_result("c1", "A"), Block.tool_result("c2", "boom", is_error=True)],
        ),
    ]
    await run(make(loopback, num_ctx=8192), req(history))
    messages = chat_bodies(loopback)[0]["messages"]
    assert messages[1]["tool_calls"] == [
        {"id": "c1", "function": {"name": "read_file", "arguments": {"path": "a"}}},
        {"id": "c2", "function": {"name": "run", "arguments": {"cmd": "ls"}}},
    ]
    assert messages[2:] == [
        {"role": "tool", "content": "A", "tool_name": "read_file", "tool_call_id": "c1"},
        {"role": "tool", "content": "Error: boom", "tool_name": "run", "tool_call_id": "c2"},
    ]


async def test_a_tool_call_written_as_text_is_recovered_into_a_real_call(loopback):
    text = (
        'Reading it.\n<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
    )
    loopback.add(ndjson(chunk(text), final("stop")))
    events = await run(make(loopback, num_ctx=8192), req(tools=TOOLS))
    done = events[-1]
    (call,) = done.message.tool_uses()
    assert (call.name, json.loads(call.input)) == ("read_file", {"path": "a.py"})
    assert done.message.text() == "Reading it."
    assert done.stop_reason is StopReason.TOOL_USE
    assert [e.id for e in events if e.type is EventType.TOOL_USE_START] == [call.id]


async def test_tool_call_text_is_left_alone_when_the_request_has_no_tools(loopback):
    text = '<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>'
    loopback.add(ndjson(chunk(text), final("stop")))
    done = (await run(make(loopback, num_ctx=8192), req()))[-1]
    assert done.message.text() == text and not done.message.tool_uses()


async def test_tool_arguments_sent_as_text_are_repaired(loopback):
    call = {"function": {"name": "read_file", "arguments": '{"path": "a.py",}'}}
    loopback.add(ndjson(chunk(tool_calls=[call]), final()))
    block = (await run(make(loopback, num_ctx=8192), req(tools=TOOLS)))[-1].message.tool_uses()[0]
    assert json.loads(block.input) == {"path": "a.py"}


async def test_user_images_go_in_the_messages_images_list(loopback):
    loopback.add(ndjson(chunk("a cat"), final()))
    message = Message(
        role="user", blocks=[Block.text_block("What is this?"), Block.image("image/png", PNG_1PX)]
    )
    await run(make(loopback, num_ctx=8192), req([message]))
    assert chat_bodies(loopback)[0]["messages"] == [
        {"role": "user", "content": "What is this?", "images": [PNG_1PX]}
    ]


async def test_tool_result_images_follow_the_tool_messages_in_a_user_message_with_a_note(loopback):
    loopback.add(ndjson(chunk("ok"), final()))
    shot = Block.image("image/png", PNG_1PX)
    history = [
        Message.user("look"),
        Message(role="assistant", model=MODEL, blocks=[Block.tool_use("c1", "screenshot", "{}")]),
        Message(role="user", blocks=[Block.tool_result("c1", "saved", images=[shot, shot])]),
    ]
    await run(make(loopback, num_ctx=8192), req(history))
    messages = chat_bodies(loopback)[0]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "tool", "user"]
    assert "images" not in messages[2]
    assert messages[3]["images"] == [PNG_1PX, PNG_1PX]
    assert messages[3]["content"].startswith(TOOL_IMAGES_NOTE)
    assert "screenshot (c1): 2 images" in messages[3]["content"]


# -- effort -> think --------------------------------------------------------------------------


async def think_sent(
    loopback: LoopbackServer, effort: str, model: str = MODEL, **show_kw: Any
) -> Any:
    loopback.route("/api/show", show(**show_kw))
    loopback.add(ndjson(chunk("ok"), final()))
    await run(make(loopback, num_ctx=8192), req(effort=effort, model=model))
    return chat_bodies(loopback)[0].get("think", "<omitted>")


async def test_default_effort_omits_think(loopback):
    assert await think_sent(loopback, "") == "<omitted>"
    assert not [r for r in loopback.requests if r.path == "/api/show"], "no probe needed"


async def test_effort_uses_the_levels_the_model_advertises(loopback):
    levels = {"values": ["low", "medium", "high"], "default": "medium"}
    assert await think_sent(loopback, "low", thinking=levels) == "low"


async def test_effort_max_is_sent_as_high(loopback):
    levels = {"values": ["low", "medium", "high"], "default": "medium"}
    assert await think_sent(loopback, "max", thinking=levels) == "high"


async def test_effort_on_a_model_without_levels_sends_true(loopback):
    assert await think_sent(loopback, "medium") is True
    loopback.requests.clear()
    on_off = {"values": [True, False], "default": True}
    assert await think_sent(loopback, "low", thinking=on_off) is True


async def test_effort_on_a_model_that_cannot_think_omits_think(loopback):
    assert await think_sent(loopback, "high", capabilities=["completion", "tools"]) == "<omitted>"


async def test_effort_for_gpt_oss_without_level_metadata_sends_the_level(loopback):
    assert await think_sent(loopback, "low", model="gpt-oss:20b") == "low"


# -- num_ctx -----------------------------------------------------------------------------------


async def options_sent(loopback: LoopbackServer, provider: OllamaProvider, **kw: Any) -> Any:
    loopback.add(ndjson(chunk("ok"), final()))
    await run(provider, req(**kw))
    return chat_bodies(loopback)[-1].get("options")


async def test_configured_num_ctx_is_sent_without_a_probe(loopback):
    assert await options_sent(loopback, make(loopback, num_ctx=65536)) == {"num_ctx": 65536}
    assert [r.path for r in loopback.requests] == ["/api/chat"]


async def test_num_ctx_is_the_models_context_length_capped_at_32k(loopback):
    loopback.route("/api/show", show(context_length=131072))
    assert await options_sent(loopback, make(loopback)) == {"num_ctx": 32768}


async def test_num_ctx_is_the_models_context_length_when_smaller_than_the_cap(loopback):
    loopback.route("/api/show", show(context_length=8192))
    assert await options_sent(loopback, make(loopback)) == {"num_ctx": 8192}


async def test_num_ctx_is_left_out_when_the_probe_fails(loopback):
    loopback.route("/api/show", Reply(status=500, body="{}", content_type="application/json"))
    assert await options_sent(loopback, make(loopback)) is None


async def test_max_tokens_is_sent_as_num_predict_and_truncation_is_off(loopback):
    options = await options_sent(loopback, make(loopback, num_ctx=4096), max_tokens=300)
    assert options == {"num_ctx": 4096, "num_predict": 300}
    assert chat_bodies(loopback)[0]["truncate"] is False


# -- ModelProber -------------------------------------------------------------------------------


async def test_prober_reads_context_length_and_tools_capability(loopback):
    loopback.route("/api/show", show(context_length=131072, capabilities=["completion", "tools"]))
    provider = make(loopback)
    assert await provider.context_window(MODEL) == 32768
    assert await provider.supports_tools(MODEL) is True
    assert loopback.requests[0].json() == {"model": MODEL}


async def test_prober_says_no_tools_when_capabilities_lack_them(loopback):
    loopback.route("/api/show", show(capabilities=["completion", "vision"]))
    assert await make(loopback).supports_tools(MODEL) is False


async def test_prober_caches_per_model(loopback):
    loopback.route("/api/show", show())
    provider = make(loopback)
    for model in (MODEL, MODEL, "llama3.2", MODEL):
        await provider.context_window(model)
        await provider.supports_tools(model)
    shown = [r.json()["model"] for r in loopback.requests if r.path == "/api/show"]
    assert shown == [MODEL, "llama3.2"]


@pytest.mark.parametrize(
    "reply",
    [
        Reply(status=404, body='{"error":"model not found"}', content_type="application/json"),
        Reply(status=200, body="not json", content_type="application/json"),
        Reply(status=200, body='{"capabilities": "tools"}', content_type="application/json"),
    ],
    ids=["404", "garbage", "odd-shape"],
)
async def test_prober_failures_are_none_never_raised(loopback, reply):
    loopback.route("/api/show", reply)
    provider = make(loopback)
    assert await provider.context_window(MODEL) is None
    assert await provider.supports_tools(MODEL) is None


async def test_prober_on_an_unreachable_server_is_none():
    provider = OllamaProvider(endpoint("ollama", f"http://127.0.0.1:{closed_port()}"))
    assert await provider.context_window(MODEL) is None
    assert await provider.supports_tools(MODEL) is None


async def test_context_window_is_the_configured_num_ctx(loopback):
    assert await make(loopback, num_ctx=16384).context_window(MODEL) == 16384
    assert loopback.requests == []


# -- errors ------------------------------------------------------------------------------------


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_connection_refused_here_fails_fast_asking_whether_ollama_serve_is_running():
    port = closed_port()
    provider = OllamaProvider(endpoint("ollama", f"http://127.0.0.1:{port}"), num_ctx=8192)
    with pytest.raises(APIError) as ei:
        await run(provider, req())
    err = ei.value
    assert err.status == 0 and not err.retryable
    assert f"cannot reach Ollama at http://127.0.0.1:{port}" in str(err)
    assert "`ollama serve`" in str(err)


async def test_connection_refused_by_a_remote_ollama_stays_retryable():
    # the test network guard refuses every non-loopback connect before anything is sent
    provider = OllamaProvider(endpoint("ollama", "http://192.0.2.1:11434"), num_ctx=8192)
    with pytest.raises(APIError) as ei:
        await run(provider, req())
    assert ei.value.status == 0 and ei.value.retryable
    assert "cannot reach Ollama at http://192.0.2.1:11434" in str(ei.value)
    assert "ollama serve" not in str(ei.value)  # that is for this machine


async def test_model_not_found_says_ollama_pull(loopback):
    loopback.add(
        Reply(
            status=404,
            body='{"error":"model \\"qwen3:8b\\" not found, try pulling it first"}',
            content_type="application/json",
        )
    )
    with pytest.raises(APIError) as ei:
        await run(make(loopback, num_ctx=8192), req())
    assert ei.value.status == 404 and not ei.value.retryable
    assert "`ollama pull qwen3:8b`" in str(ei.value)


async def test_context_length_error_is_context_overflow(loopback):
    inner = {
        "error": {
            "code": 400,
            "message": "request (8889 tokens) exceeds the available context size (4096 tokens), try increasing it",
            "type": "exceed_context_size_error",
        }
    }
    body = json.dumps({"error": json.dumps(inner)})
    loopback.add(Reply(status=400, body=body, content_type="application/json"))
    with pytest.raises(ContextOverflow) as ei:
        await run(make(loopback, num_ctx=4096), req())
    assert not ei.value.retryable
    assert "exceeds the available context size (4096 tokens)" in str(ei.value)


async def test_error_line_mid_stream_raises_api_error_with_its_message(loopback):
    error = json.dumps({"error": "llama runner process has terminated: exit status 2"})
    loopback.add(ndjson(chunk("Hel"), error + "\n"))
    events: list[StreamEvent] = []
    with pytest.raises(APIError) as ei:
        async for ev in make(loopback, num_ctx=8192).stream(req()):
            events.append(ev)
    assert "llama runner process has terminated" in str(ei.value)
    assert [e.type for e in events] == [EventType.TEXT_DELTA]


async def test_context_error_line_mid_stream_is_context_overflow(loopback):
    error = json.dumps({"error": "the prompt is longer than the context length"})
    loopback.add(ndjson(error + "\n"))
    with pytest.raises(ContextOverflow):
        await run(make(loopback, num_ctx=8192), req())


async def test_stream_that_ends_without_done_is_a_retryable_error(loopback):
    loopback.add(ndjson(chunk("Hel"), chunk("lo")))
    with pytest.raises(APIError) as ei:
        await run(make(loopback, num_ctx=8192), req())
    assert ei.value.status == 0 and ei.value.retryable


async def test_a_line_that_is_not_json_is_a_retryable_error(loopback):
    loopback.add(ndjson(chunk("Hel"), "<html>oops</html>\n", final()))
    with pytest.raises(APIError) as ei:
        await run(make(loopback, num_ctx=8192), req())
    assert "malformed stream" in str(ei.value) and ei.value.retryable


# -- configuration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,url",
    [
        ("", "http://127.0.0.1:11434"),
        ("example.com", "http://example.com:11434"),
        ("example.com:56789", "http://example.com:56789"),
        ("0.0.0.0:11434", "http://127.0.0.1:11434"),
        (":8080", "http://127.0.0.1:8080"),
        ("http://example.com", "http://example.com:80"),
        ("https://example.com/", "https://example.com:443"),
        ("https://example.com:8443/ollama", "https://example.com:8443/ollama"),
        ("[::1]:11435", "http://[::1]:11435"),
    ],
)
def test_ollama_host_is_read_like_ollamas_own_clients(value, url):
    assert parse_host(value) == url


def test_base_url_defaults_to_ollama_host_or_localhost(monkeypatch):
    assert OllamaProvider(resolve_endpoint("ollama")).base_url == "http://127.0.0.1:11434"
    monkeypatch.setenv("OLLAMA_HOST", "https://gpu-box:11500")
    assert OllamaProvider(resolve_endpoint("ollama")).base_url == "https://gpu-box:11500"
    config = Config(providers={"ollama": {"base_url": "http://127.0.0.1:9/"}})
    assert OllamaProvider(resolve_endpoint("ollama", config)).base_url == "http://127.0.0.1:9"


async def test_api_key_is_sent_as_bearer_and_none_is_sent_without_one(loopback, monkeypatch):
    def built(**table: Any) -> OllamaProvider:
        config = Config(providers={"ollama": {"base_url": loopback.url, **table}})
        return OllamaProvider(resolve_endpoint("ollama", config), num_ctx=8192)

    monkeypatch.delenv("OLLAMA_API_KEY", raising=False)
    monkeypatch.setenv("MY_OLLAMA_KEY", "other-env-key")
    for _ in range(4):
        loopback.add(ndjson(chunk("ok"), final()))
    await run(built(), req())
    monkeypatch.setenv("OLLAMA_API_KEY", "env-key-123")
    await run(built(), req())
    await run(built(api_key="given-key"), req())
    await run(built(api_key_env="MY_OLLAMA_KEY"), req())
    auth = [r.headers.get("authorization") for r in loopback.requests]
    assert auth == [None, "Bearer env-key-123", "Bearer given-key", "Bearer other-env-key"]


async def test_unauthorized_names_the_key_variable(loopback):
    loopback.add(
        Reply(status=401, body='{"error":"unauthorized"}', content_type="application/json")
    )
    with pytest.raises(APIError) as ei:
        await run(make(loopback, num_ctx=8192), req())
    assert ei.value.status == 401 and "OLLAMA_API_KEY" in str(ei.value)
    assert "dummy-key" not in str(ei.value)


async def test_an_authorization_header_given_in_headers_is_kept(loopback):
    loopback.add(ndjson(chunk("ok"), final()))
    provider = make(loopback, num_ctx=8192, headers={"authorization": "Basic abc"})
    await run(provider, req())
    assert loopback.requests[0].headers["authorization"] == "Basic abc"


def test_unknown_option_and_bad_num_ctx_are_config_errors():
    ep = resolve_endpoint("ollama")
    with pytest.raises(ConfigError, match="temprature"):
        OllamaProvider(ep, temprature=0.2)
    with pytest.raises(ConfigError, match="num_ctx"):
        OllamaProvider(ep, num_ctx=0)
    with pytest.raises(ConfigError, match="timeout"):
        OllamaProvider(ep, timeout="soon")


async def test_extra_options_and_keep_alive_are_sent(loopback):
    provider = make(loopback, num_ctx=8192, options={"temperature": 0.2}, keep_alive="30m")
    assert await options_sent(loopback, provider) == {"temperature": 0.2, "num_ctx": 8192}
    assert chat_bodies(loopback)[0]["keep_alive"] == "30m"


async def test_a_models_temperature_in_the_request_is_an_option(loopback):
    provider = make(loopback, num_ctx=8192, options={"temperature": 0.9})
    sent = await options_sent(loopback, provider, temperature=0.1)
    assert sent == {"temperature": 0.1, "num_ctx": 8192}


async def test_a_models_sampling_goes_into_the_options(loopback):
    provider = make(loopback, num_ctx=8192)
    sent = await options_sent(loopback, provider, temperature=0.2, top_p=0.9, repeat_penalty=1.1)
    assert sent == {"temperature": 0.2, "top_p": 0.9, "repeat_penalty": 1.1, "num_ctx": 8192}


async def test_a_local_server_is_not_reached_through_an_environment_proxy(loopback, monkeypatch):
    proxy = f"http://127.0.0.1:{closed_port()}"
    for var in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(var, proxy)
    loopback.add(ndjson(chunk("ok"), final()))
    done = (await run(make(loopback, num_ctx=8192), req()))[-1]
    assert done.message.text() == "ok"


async def test_http_client_is_built_once_and_reused(loopback):
    provider = make(loopback, num_ctx=8192)
    loopback.add(ndjson(chunk("a"), final()), ndjson(chunk("b"), final()))
    await run(provider, req())
    client = provider._client
    await run(provider, req())
    assert client is not None and provider._client is client


def test_importing_the_adapter_does_not_import_httpx2():
    code = "import sys, larik.llm.providers.ollama; print('httpx2' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize(
    "lines,stop",
    [
        ([chunk("ok"), final("stop")], StopReason.END_TURN),
        ([chunk("cut"), final("length")], StopReason.MAX_TOKENS),
        (
            [chunk(tool_calls=[{"function": {"name": "f", "arguments": {}}}]), final("stop")],
            StopReason.TOOL_USE,
        ),
    ],
    ids=["stop", "length", "stop-with-tool-calls"],
)
async def test_done_reason_and_counters_map_to_stop_reason_and_usage(loopback, lines, stop):
    lines[-1] = final(json.loads(lines[-1])["done_reason"], prompt=321, output=54)
    loopback.add(ndjson(*lines))
    done = (await run(make(loopback, num_ctx=8192), req()))[-1]
    assert done.stop_reason is stop
    assert (done.usage.input, done.usage.output, done.usage.cache_read) == (321, 54, 0)
