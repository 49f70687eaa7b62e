"""Gemini adapter: real recordings, the request golden, and the Gemini-specific rules."""

from __future__ import annotations

import asyncio
import base64
import gc
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from larik.config import Config
from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import APIError, ConfigError, ContextOverflow, MissingKeyError
from larik.llm.providers.gemini import GeminiProvider
from larik.llm.types import (
    Block,
    EventType,
    Message,
    Request,
    StopReason,
    StreamEvent,
    ToolSpec,
)
from tests.llm.helpers import endpoint
from tests.llm.providers.conformance import PNG_1PX, canonical_request
from tests.llm.providers.kits.gemini import chunk, sse
from tests.loopback import LoopbackServer, Reply, wire_case
from tests.patience import WAIT

GOLDEN = Path(__file__).parent / "golden" / "gemini_request.json"
TOOLS = [ToolSpec(name="read_file", input_schema={"type": "object"})]


def make(server: LoopbackServer, headers: Any = None, **kw: Any) -> GeminiProvider:
    return GeminiProvider(endpoint("gemini", server.url, headers=headers), **kw)


def from_env(server: LoopbackServer, **table: Any) -> GeminiProvider:
    """The gemini provider as routing builds it (key from the environment), at ``server``."""
    config = Config(providers={"gemini": {"base_url": server.url, **table}})
    return GeminiProvider(resolve_endpoint("gemini", config))


def req(model: str = "gemini-2.5-flash", messages: list[Message] | None = None, **kw: Any):
    return Request(model=model, messages=messages or [Message.user("hi")], **kw)


async def run(provider: GeminiProvider, request: Request) -> tuple[list[StreamEvent], StreamEvent]:
    events = [ev async for ev in provider.stream(request)]
    dones = [e for e in events if e.type is EventType.DONE]
    assert len(dones) == 1 and events[-1] is dones[0]
    return events, dones[0]


def texts(events: list[StreamEvent], kind: EventType) -> list[str]:
    return [e.text for e in events if e.type is kind]


def wire_signature(case: str, index: int = 0) -> str:
    """The index-th thoughtSignature in a recording, as the text Google sent."""
    body = wire_case("gemini", case).response.decode()
    return body.split('"thoughtSignature": "')[index + 1].split('"')[0]


def sent_parts(server: LoopbackServer, content: int) -> list[dict[str, Any]]:
    return server.requests[-1].json()["contents"][content]["parts"]


# -- real recordings (../shared/wire/gemini) ----------------------------------------------


async def test_wire_text_stream_crlf_sse(loopback, wire_dir):
    loopback.add(wire_case("gemini", "text_stream").reply(chunk_size=64))
    events, done = await run(make(loopback), req(messages=[Message.user("What is 4200 + 42?")]))
    deltas = texts(events, EventType.TEXT_DELTA)
    assert len(deltas) == 2
    assert done.message.text() == "".join(deltas)
    assert done.message.text().endswith("So, 4200 + 42 = **4242**.")
    assert [b.type for b in done.message.blocks] == ["text"]
    assert done.usage.model_dump() == {"input": 13, "output": 63 + 75}
    assert done.stop_reason is StopReason.END_TURN
    assert loopback.requests[0].path.endswith(
        "models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )


async def test_wire_parallel_function_calls_keep_the_one_signature(loopback, wire_dir):
    loopback.add(wire_case("gemini", "function_call_parallel_stream").reply())
    events, done = await run(make(loopback), req())
    calls = done.message.tool_uses()
    assert [(c.name, json.loads(c.input)) for c in calls] == [
        ("secret_retrieval_tool", {"password": "mellon"}),
        ("secret_retrieval_tool", {"password": "radiance"}),
    ]
    assert calls[0].signature == wire_signature("function_call_parallel_stream")
    assert calls[1].signature == ""
    assert calls[0].id and calls[1].id and calls[0].id != calls[1].id
    assert texts(events, EventType.TOOL_USE_START) == ["secret_retrieval_tool"] * 2
    assert done.usage.model_dump() == {"input": 70, "output": 40 + 61}
    assert done.stop_reason is StopReason.TOOL_USE


async def test_wire_gemini3_function_call_signature(loopback, wire_dir):
    loopback.add(wire_case("gemini", "gemini3_function_call_signature_stream").reply())
    _, done = await run(make(loopback), req("gemini-3-pro-preview"))
    (call,) = done.message.blocks  # the trailing empty text part adds no block
    assert call.type == "tool_use" and call.name == "get_country" and call.input == "{}"
    assert call.signature == wire_signature("gemini3_function_call_signature_stream")
    assert done.usage.model_dump() == {"input": 29, "output": 10 + 202}
    assert done.stop_reason is StopReason.TOOL_USE


async def test_wire_max_tokens(loopback, wire_dir):
    loopback.add(wire_case("gemini", "max_tokens_stream").reply())
    _, done = await run(make(loopback), req(max_tokens=50))
    assert done.message.text() == "Here are all 50 U.S."
    assert done.usage.model_dump() == {"input": 9, "output": 10 + 38}
    assert done.stop_reason is StopReason.MAX_TOKENS


async def test_wire_thinking_nonstream_json_goes_through_the_same_chunk_conversion(
    loopback, wire_dir
):
    # A whole generateContent JSON document: the SDK's stream reader reads it as one chunk.
    loopback.add(wire_case("gemini", "thinking_nonstream").reply())
    events, done = await run(make(loopback), req())
    thinking, text = done.message.blocks
    assert thinking.type == "thinking" and thinking.provider == "gemini-display"
    assert thinking.text.startswith('**Analyzing Prime Numbers for the "79" Substring**')
    assert texts(events, EventType.THINKING_DELTA) == [thinking.text]
    assert text.type == "text" and text.text.endswith("there are 3 such primes.\n\n3")
    assert done.usage.model_dump() == {"input": 30, "output": 136 + 1754}
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_thought_summaries_stream_as_thinking(loopback, wire_dir):
    loopback.add(wire_case("gemini", "thought_summaries_stream").reply())
    events, done = await run(make(loopback), req())
    summaries = texts(events, EventType.THINKING_DELTA)
    assert len(summaries) == 4 and summaries[0].startswith("**Analyzing Prime Substrings**")
    thinking, text = done.message.blocks
    assert thinking.type == "thinking" and thinking.text == "".join(summaries)
    assert thinking.provider == "gemini-display"
    assert text.text == "3"
    assert done.usage.model_dump() == {"input": 30, "output": 1947}
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_api_key_invalid_is_an_auth_error_naming_the_env_var(loopback, wire_dir):
    loopback.add(wire_case("gemini", "error_400_api_key_invalid_stream").reply())
    events: list[StreamEvent] = []
    with pytest.raises(APIError) as ei:
        async for ev in make(loopback).stream(req()):
            events.append(ev)
    assert events == []
    err = ei.value
    assert err.status == 401 and not err.retryable
    assert "GEMINI_API_KEY" in str(err) and "API key not valid" in str(err)
    assert "dummy-key" not in str(err)


# -- the request golden ---------------------------------------------------------------------


async def test_canonical_request_golden(loopback):
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), canonical_request("gemini-3-pro-preview", "gemini"))
    sent = loopback.requests[0]
    assert sent.path == "/v1/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    assert sent.json() == json.loads(GOLDEN.read_text())


# -- thought signatures ---------------------------------------------------------------------


def signed_reply() -> Reply:
    call = {"name": "read_file", "args": {"path": "a.py"}}
    return sse(
        chunk([{"text": "Let me "}]),
        chunk([{"text": "look.", "thoughtSignature": "c2lnLXRleHQ+Pz8/"}]),
        chunk([{"functionCall": call, "thoughtSignature": "c2lnLWNhbGw/Pz4+"}], "STOP"),
    )


async def test_signatures_are_kept_as_base64_on_the_text_and_tool_use_blocks(loopback):
    loopback.add(signed_reply())
    _, done = await run(make(loopback), req())
    text, call = done.message.blocks
    assert (text.type, text.text, text.signature) == ("text", "Let me look.", "c2lnLXRleHQ+Pz8/")
    assert (call.type, call.signature) == ("tool_use", "c2lnLWNhbGw/Pz4+")


async def test_a_signature_on_a_trailing_empty_part_stays_with_the_text_before_it(loopback):
    loopback.add(
        sse(
            chunk([{"text": "Hel"}]),
            chunk([{"text": "lo"}]),
            chunk([{"text": "", "thoughtSignature": "c2lnLXRleHQ+Pz8/"}], "STOP"),
        )
    )
    _, done = await run(make(loopback), req())
    (text,) = done.message.blocks
    assert (text.text, text.signature) == ("Hello", "c2lnLXRleHQ+Pz8/")


async def test_signatures_replay_to_the_same_model_with_the_same_bytes(loopback):
    provider = make(loopback)
    loopback.add(signed_reply())
    _, done = await run(provider, req())
    history = [Message.user("hi"), done.message, Message.user("go on")]
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(provider, req(messages=history))
    text, call = sent_parts(loopback, 1)
    assert text["text"] == "Let me look."
    assert "functionCall" in call
    # The SDK writes bytes in URL-safe base64: same bytes, other alphabet.
    assert text["thoughtSignature"] == "c2lnLXRleHQ-Pz8_"
    assert base64.urlsafe_b64decode(text["thoughtSignature"]) == base64.b64decode(
        "c2lnLXRleHQ+Pz8/"
    )
    assert base64.urlsafe_b64decode(call["thoughtSignature"]) == base64.b64decode(
        "c2lnLWNhbGw/Pz4+"
    )


async def test_signatures_are_not_sent_to_another_model(loopback):
    loopback.add(signed_reply())
    _, done = await run(make(loopback), req("gemini-2.5-flash"))
    history = [Message.user("hi"), done.message, Message.user("go on")]
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req("gemini-2.5-pro", history))
    text, call = sent_parts(loopback, 1)
    assert text == {"text": "Let me look."}
    assert call["functionCall"]["name"] == "read_file"
    assert b"thoughtSignature" not in loopback.requests[-1].body


async def test_parallel_calls_replay_the_signature_only_where_the_wire_had_it(loopback, wire_dir):
    provider = make(loopback)
    loopback.add(wire_case("gemini", "function_call_parallel_stream").reply())
    _, done = await run(provider, req())
    results = [Block.tool_result(c.id, "secret") for c in done.message.tool_uses()]
    history = [Message.user("hi"), done.message, Message(role="user", blocks=results)]
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(provider, req(messages=history))
    first, second = sent_parts(loopback, 1)
    original = base64.b64decode(wire_signature("function_call_parallel_stream"))
    assert base64.urlsafe_b64decode(first["thoughtSignature"]) == original
    assert "thoughtSignature" not in second


async def test_thought_summaries_are_never_sent_back(loopback):
    provider = make(loopback)
    loopback.add(
        sse(
            chunk([{"text": "Pondering deeply.", "thought": True}]), chunk([{"text": "A."}], "STOP")
        )
    )
    _, done = await run(provider, req())
    assert done.message.blocks[0].provider == "gemini-display"
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(provider, req(messages=[Message.user("hi"), done.message, Message.user("more")]))
    assert sent_parts(loopback, 1) == [{"text": "A."}]
    assert b"Pondering" not in loopback.requests[-1].body


# -- thinking config from effort --------------------------------------------------------------


@pytest.mark.parametrize(
    "model,effort,expected",
    [
        ("gemini-3-pro-preview", "low", "LOW"),
        ("gemini-3-pro-preview", "medium", "HIGH"),  # Pro takes only low / high
        ("gemini-3-flash-preview", "medium", "MEDIUM"),
        ("gemini-3-pro-preview", "high", "HIGH"),
        ("gemini-3-pro-preview", "max", "HIGH"),
    ],
)
async def test_effort_sets_thinking_level_on_gemini_3(loopback, model, effort, expected):
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req(model, effort=effort))
    config = loopback.requests[0].json()["generationConfig"]["thinkingConfig"]
    assert config == {"include_thoughts": True, "thinking_level": expected}


@pytest.mark.parametrize(
    "model,effort,budget",
    [
        ("gemini-2.5-flash", "low", 1024),
        ("gemini-2.5-flash", "medium", 8192),
        ("gemini-2.5-flash", "high", 24576),
        ("gemini-2.5-flash", "max", 24576),  # Flash caps at 24576
        ("gemini-2.5-pro", "max", 32768),
    ],
)
async def test_effort_sets_thinking_budget_on_gemini_2_5(loopback, model, effort, budget):
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req(model, effort=effort))
    config = loopback.requests[0].json()["generationConfig"]["thinkingConfig"]
    assert config == {"include_thoughts": True, "thinking_budget": budget}


async def test_thought_summaries_are_requested_even_without_effort(loopback):
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req("gemini-3-flash-preview"))
    config = loopback.requests[0].json()["generationConfig"]["thinkingConfig"]
    assert config == {"include_thoughts": True}


async def test_models_without_thinking_get_no_thinking_config(loopback):
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req("gemini-2.0-flash", effort="high"))
    assert "thinkingConfig" not in json.dumps(loopback.requests[0].json())


async def test_a_thinking_budget_leaves_the_reply_its_max_tokens(loopback):
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req("gemini-2.5-flash", effort="high", max_tokens=4096))
    assert loopback.requests[0].json()["generationConfig"]["maxOutputTokens"] == 4096 + 24576


async def test_thinking_option_false_sends_no_thinking_config(loopback):
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback, thinking=False), req("gemini-3-pro-preview", effort="high"))
    assert "thinkingConfig" not in json.dumps(loopback.requests[0].json())


async def test_thinking_option_true_uses_thinking_levels_for_unknown_model_names(loopback):
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback, thinking=True), req("house-model", effort="low"))
    config = loopback.requests[0].json()["generationConfig"]["thinkingConfig"]
    assert config == {"include_thoughts": True, "thinking_level": "LOW"}


# -- conversation mapping ---------------------------------------------------------------------


async def test_tool_result_images_follow_the_function_response(loopback):
    history = [
        Message.user("shot"),
        Message(
            role="assistant",
            model="gemini-2.5-flash",
            blocks=[Block.tool_use("call_9", "screenshot", "{}")],
        ),
        Message(
            role="user",
            blocks=[
                Block.tool_result(
                    "call_9", "two images", images=[Block.image("image/png", PNG_1PX)] * 2
                )
            ],
        ),
    ]
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req(messages=history))
    response, img1, img2 = sent_parts(loopback, 2)
    assert response["functionResponse"] == {
        "id": "call_9",
        "name": "screenshot",
        "response": {"output": "two images"},
    }
    assert img1 == img2
    assert img1["inlineData"]["mime_type"] == "image/png"
    assert base64.urlsafe_b64decode(img1["inlineData"]["data"]) == base64.b64decode(PNG_1PX)


async def test_empty_text_is_not_sent(loopback):
    history = [Message(role="user", blocks=[Block.text_block(""), Block.text_block("hi")])]
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req(messages=history))
    assert sent_parts(loopback, 0) == [{"text": "hi"}]


async def test_failed_tool_results_are_sent_as_error(loopback):
    history = [
        Message(role="assistant", model="x", blocks=[Block.tool_use("c1", "run", "{}")]),
        Message(role="user", blocks=[Block.tool_result("c1", "exit 1", is_error=True)]),
    ]
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req(messages=history))
    (part,) = sent_parts(loopback, 1)
    assert part["functionResponse"]["response"] == {"error": "exit 1"}


async def test_tools_are_declared_with_their_json_schema(loopback):
    schema = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    tools = [ToolSpec(name="read_file", description="Read", input_schema=schema)]
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(make(loopback), req(tools=tools))
    (decl,) = loopback.requests[0].json()["tools"][0]["functionDeclarations"]
    assert decl == {"name": "read_file", "description": "Read", "parameters_json_schema": schema}


async def test_calls_without_ids_get_generated_ids_that_are_not_sent_back(loopback):
    provider = make(loopback)
    call = {"name": "read_file", "args": {"path": "a"}}
    loopback.add(sse(chunk([{"functionCall": call}, {"functionCall": call}], "STOP")))
    _, done = await run(provider, req())
    first, second = done.message.tool_uses()
    assert first.id.startswith("gcall_") and second.id.startswith("gcall_")
    assert first.id != second.id
    results = [Block.tool_result(first.id, "A"), Block.tool_result(second.id, "B")]
    history = [Message.user("hi"), done.message, Message(role="user", blocks=results)]
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(provider, req(messages=history))
    assert [p["functionCall"] for p in sent_parts(loopback, 1)] == [
        {"name": "read_file", "args": {"path": "a"}}
    ] * 2
    assert [p["functionResponse"] for p in sent_parts(loopback, 2)] == [
        {"name": "read_file", "response": {"output": "A"}},
        {"name": "read_file", "response": {"output": "B"}},
    ]


async def test_call_ids_from_the_api_are_kept_and_sent_back(loopback):
    provider = make(loopback)
    call = {"id": "fc-77", "name": "read_file", "args": {}}
    loopback.add(sse(chunk([{"functionCall": call}], "STOP")))
    _, done = await run(provider, req())
    assert done.message.tool_uses()[0].id == "fc-77"
    history = [done.message, Message(role="user", blocks=[Block.tool_result("fc-77", "x")])]
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(provider, req(messages=history))
    assert sent_parts(loopback, 0)[0]["functionCall"]["id"] == "fc-77"
    assert sent_parts(loopback, 1)[0]["functionResponse"]["id"] == "fc-77"


# -- usage and stop reasons -------------------------------------------------------------------


async def test_usage_splits_cached_prompt_tokens_and_counts_thoughts_as_output(loopback):
    usage = {
        "promptTokenCount": 100,
        "cachedContentTokenCount": 40,
        "candidatesTokenCount": 7,
        "thoughtsTokenCount": 20,
    }
    loopback.add(sse(chunk([{"text": "ok"}], "STOP", usage)))
    _, done = await run(make(loopback), req())
    assert done.usage.model_dump() == {"input": 60, "output": 27, "cache_read": 40}


@pytest.mark.parametrize("reason", ["SAFETY", "RECITATION", "PROHIBITED_CONTENT", "BLOCKLIST"])
async def test_blocked_finish_reasons_are_refusals(loopback, reason):
    loopback.add(sse(chunk([{"text": "par"}], reason)))
    _, done = await run(make(loopback), req())
    assert done.stop_reason is StopReason.REFUSAL


async def test_a_blocked_prompt_is_a_refusal(loopback):
    loopback.add(sse({"promptFeedback": {"blockReason": "SAFETY"}, "usageMetadata": {}}))
    _, done = await run(make(loopback), req())
    assert done.stop_reason is StopReason.REFUSAL and done.message.blocks == []


async def test_a_stream_that_ends_without_a_finish_reason_is_an_error(loopback):
    loopback.add(sse(chunk([{"text": "half"}])))
    events: list[StreamEvent] = []
    with pytest.raises(APIError) as ei:
        async for ev in make(loopback).stream(req()):
            events.append(ev)
    assert ei.value.retryable
    assert not [e for e in events if e.type is EventType.DONE]


# -- errors -----------------------------------------------------------------------------------


def error_reply(status: int, body: dict[str, Any]) -> Reply:
    return Reply(status=status, body=json.dumps({"error": body}), content_type="application/json")


async def test_too_many_tokens_is_context_overflow(loopback):
    msg = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."
    loopback.add(error_reply(400, {"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}))
    with pytest.raises(ContextOverflow) as ei:
        await run(make(loopback), req())
    assert not ei.value.retryable and ei.value.provider == "gemini"


async def test_rate_limit_retry_delay_from_retry_info(loopback):
    details = [{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}]
    body = {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED", "details": details}
    loopback.add(error_reply(429, body))
    with pytest.raises(APIError) as ei:
        await run(make(loopback), req())
    assert (ei.value.status, ei.value.retryable, ei.value.retry_after) == (429, True, 7.0)


async def test_sdk_does_not_retry(loopback):
    loopback.add(error_reply(503, {"code": 503, "message": "busy", "status": "UNAVAILABLE"}))
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    with pytest.raises(APIError) as ei:
        await run(make(loopback), req())
    assert ei.value.status == 503 and ei.value.retryable
    assert len(loopback.requests) == 1


async def test_connection_refused_is_a_retryable_transport_error():
    provider = GeminiProvider(endpoint("gemini", "http://127.0.0.1:9"))
    with pytest.raises(APIError) as ei:
        await run(provider, req())
    assert (ei.value.status, ei.value.retryable) == (0, True)


# -- keys, headers, client ----------------------------------------------------------------------


async def test_missing_key_names_both_env_vars(loopback):
    with pytest.raises(MissingKeyError) as ei:
        await run(from_env(loopback), req())
    assert "GEMINI_API_KEY" in str(ei.value) and "GOOGLE_API_KEY" in str(ei.value)
    assert loopback.requests == []


async def test_key_and_headers_come_from_env_and_options(loopback, monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "google-env-key")
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(from_env(loopback, headers={"X-Team": "larik"}), req())
    headers = loopback.requests[0].headers
    assert headers["x-goog-api-key"] == "google-env-key"
    assert headers["x-team"] == "larik"


async def test_gemini_api_key_wins_over_google_api_key(loopback, monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "google-env-key")
    monkeypatch.setenv("GEMINI_API_KEY", "gemini-env-key")
    loopback.add(sse(chunk([{"text": "ok"}], "STOP")))
    await run(from_env(loopback), req())
    assert loopback.requests[0].headers["x-goog-api-key"] == "gemini-env-key"


@pytest.mark.parametrize(
    "option", [{"thinking": "no"}, {"timeout": "soon"}, {"connect_timeout": 0}]
)
def test_bad_options_are_a_one_line_config_error(option):
    with pytest.raises(ConfigError) as ei:
        GeminiProvider(endpoint("gemini", "https://g.example"), **option)
    assert str(ei.value).startswith("gemini: ") and "\n" not in str(ei.value)


def test_importing_the_adapter_imports_no_sdk():
    code = (
        "import sys, larik.llm.providers.gemini; "
        "print(sorted(m for m in sys.modules if m.startswith(('google', 'httpx'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- cancellation -----------------------------------------------------------------------------


def stalled_reply() -> Reply:
    reply = sse(chunk([{"text": "first "}]), chunk([{"text": "second"}]))
    reply.body = [p + b"\r\n\r\n" for p in reply.chunks()[0].split(b"\r\n\r\n") if p]
    reply.stall_after = 1
    return reply


async def test_closing_the_stream_closes_the_response_without_the_garbage_collector(loopback):
    loopback.add(stalled_reply())
    stream = make(loopback).stream(req())
    gc.disable()
    try:
        async for ev in stream:
            if ev.type is EventType.TEXT_DELTA:
                break
        await stream.aclose()
        assert await asyncio.to_thread(loopback.wait_disconnect)
    finally:
        gc.enable()


async def test_cancelling_the_consumer_task_closes_the_response(loopback):
    loopback.add(stalled_reply())
    first = asyncio.Event()

    async def consume() -> None:
        async for ev in make(loopback).stream(req()):
            if ev.type is EventType.TEXT_DELTA:
                first.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first.wait(), WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(loopback.wait_disconnect)
