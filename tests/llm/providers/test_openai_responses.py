"""The OpenAI Responses adapter: recordings, the request golden, and its own rules.

Every test runs against the loopback server; the conformance scenarios live in
tests/llm/providers/conformance.py (kit: tests/llm/providers/kits/openai_responses.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from larik.config import Config
from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import APIError, ConfigError, ContextOverflow, MissingKeyError
from larik.llm.providers.openai_responses import OpenAIResponsesProvider
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
from tests.llm.helpers import endpoint
from tests.llm.providers.conformance import PNG_1PX, canonical_request
from tests.llm.providers.kits.openai_responses import MODEL, Stream, error_reply
from tests.loopback import LoopbackServer, Reply, wire_case

API = "openai-responses"
GOLDEN = Path(__file__).parent / "golden" / "openai_responses_request.json"


def make(
    server: LoopbackServer, name: str = "openai", headers: Any = None, **kw: Any
) -> OpenAIResponsesProvider:
    ep = endpoint("openai", f"{server.url}/v1", name=name, headers=headers)
    return OpenAIResponsesProvider(ep, **kw)


def req(messages: list[Message] | None = None, **kw: Any) -> Request:
    kw.setdefault("model", MODEL)
    return Request(messages=messages or [Message.user("hi")], **kw)


async def run(provider: OpenAIResponsesProvider, request: Request) -> list[StreamEvent]:
    return [ev async for ev in provider.stream(request)]


def done_of(events: list[StreamEvent]) -> StreamEvent:
    dones = [e for e in events if e.type is EventType.DONE]
    assert len(dones) == 1 and events[-1] is dones[0]
    return dones[0]


def text_of(events: list[StreamEvent], kind: EventType) -> str:
    return "".join(e.text for e in events if e.type is kind)


def ok() -> Reply:
    return Stream().created().message(["ok"]).completed(Usage(input=1, output=1))


async def sent(server: LoopbackServer, request: Request, **kw: Any) -> dict[str, Any]:
    """The JSON body the adapter sends for ``request``."""
    server.add(ok())
    await run(make(server, **kw), request)
    return server.requests[-1].json()


def completed_output(case_body: bytes) -> list[dict[str, Any]]:
    """The output items of a recording's terminal event."""
    for line in case_body.decode().splitlines():
        if line.startswith("data:"):
            data = json.loads(line[5:])
            if data.get("type") in ("response.completed", "response.incomplete"):
                return data["response"]["output"]
    raise AssertionError("no terminal event in the recording")


# -- the wire recordings (../shared/wire/openai-responses) ---------------------------------


async def replay(loopback: LoopbackServer, name: str) -> list[StreamEvent]:
    case = wire_case(API, name)
    loopback.add(case.reply())
    return await run(make(loopback), req(model=(case.request or {}).get("model", MODEL)))


async def test_wire_text_stream(wire_dir, loopback):
    events = await replay(loopback, "text_stream")
    done = done_of(events)
    assert text_of(events, EventType.TEXT_DELTA) == "4200 + 42 equals 4242."
    assert done.message.text() == "4200 + 42 equals 4242."
    assert done.usage == Usage(input=16, output=11)
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_function_call_parallel_stream(wire_dir, loopback):
    events = await replay(loopback, "function_call_parallel_stream")
    done = done_of(events)
    starts = [(e.text, e.id) for e in events if e.type is EventType.TOOL_USE_START]
    assert starts == [
        ("secret_retrieval_tool", "call_sKC7OABqf2A2PTLCm0CLeRWV"),
        ("secret_retrieval_tool", "call_OdR3s3xop0vtgkDyWRMLafuH"),
    ]
    calls = [(b.id, b.name, b.input) for b in done.message.tool_uses()]
    assert calls == [
        ("call_sKC7OABqf2A2PTLCm0CLeRWV", "secret_retrieval_tool", '{"password":"mellon"}'),
        ("call_OdR3s3xop0vtgkDyWRMLafuH", "secret_retrieval_tool", '{"password":"radiance"}'),
    ]
    assert done.usage == Usage(input=36, output=54)
    assert done.stop_reason is StopReason.TOOL_USE


async def test_wire_function_call_output_followup_stream(wire_dir, loopback):
    case = wire_case(API, "function_call_output_followup_stream")
    recorded = [i for i in case.request["input"] if i.get("type", "").startswith("function_call")]
    # the same history in the neutral model: the adapter sends the same calls and outputs
    calls = [i for i in recorded if i["type"] == "function_call"]
    outputs = [i for i in recorded if i["type"] == "function_call_output"]
    history = [
        Message.user("Please retrieve the secrets"),
        Message(
            role="assistant",
            model="gpt-4o",
            blocks=[Block.tool_use(c["call_id"], c["name"], c["arguments"]) for c in calls],
        ),
        Message(
            role="user", blocks=[Block.tool_result(o["call_id"], o["output"]) for o in outputs]
        ),
    ]
    loopback.add(case.reply())
    events = await run(make(loopback), req(history, model="gpt-4o"))
    ours = [i for i in loopback.requests[-1].json()["input"] if i["type"] != "message"]
    keys = ("type", "call_id", "name", "arguments", "output")
    assert [{k: i[k] for k in keys if k in i} for i in recorded] == ours

    done = done_of(events)
    text = done.message.text()
    assert text.startswith("Here are the secrets associated with each password:")
    assert "Welcome to Moria!" in text and "Life before Death" in text
    assert text_of(events, EventType.TEXT_DELTA) == text
    assert done.usage == Usage(input=136, output=32)
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_reasoning_encrypted_function_call_stream(wire_dir, loopback):
    case = wire_case(API, "reasoning_encrypted_function_call_stream")
    events = await replay(loopback, case.name)
    done = done_of(events)
    reasoning = completed_output(case.response)[0]
    opaque = [b for b in done.message.blocks if b.type == "opaque"]
    assert len(opaque) == 1 and opaque[0].provider == "openai"
    assert json.loads(opaque[0].raw) == reasoning  # every key and value of the item
    assert not [b for b in done.message.blocks if b.type == "thinking"]  # empty summary
    assert [(b.name, b.input) for b in done.message.tool_uses()] == [
        ("final_result", '{"result":6666}')
    ]
    assert done.usage == Usage(input=53, output=469)
    assert done.stop_reason is StopReason.TOOL_USE

    # the next request to the same model carries the item, then the call it came with
    history = [
        Message.user("Calculate 100 * 200 / 3"),
        done.message,
        Message(role="user", blocks=[Block.tool_result("call_CWXgs68YprAjp6t0371hiPOI", "ok")]),
    ]
    body = await sent(loopback, req(history, model="gpt-5"))
    assert [i["type"] for i in body["input"]] == [
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
    ]
    assert body["input"][1] == reasoning


async def test_wire_reasoning_summary_stream(wire_dir, loopback):
    case = wire_case(API, "reasoning_summary_stream")
    events = await replay(loopback, case.name)
    done = done_of(events)
    reasoning, message = completed_output(case.response)
    summary = "\n\n".join(s["text"] for s in reasoning["summary"])
    assert len(reasoning["summary"]) == 4
    assert text_of(events, EventType.THINKING_DELTA) == summary
    thinking = [b for b in done.message.blocks if b.type == "thinking"]
    assert [(b.text, b.provider) for b in thinking] == [(summary, "openai-display")]
    assert [b.type for b in done.message.blocks] == ["thinking", "opaque", "text"]
    assert json.loads(done.message.blocks[1].raw) == reasoning
    assert done.message.text() == message["content"][0]["text"]
    assert text_of(events, EventType.TEXT_DELTA) == done.message.text()
    assert done.usage == Usage(input=13, output=1680)
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_incomplete_max_output_tokens_stream(wire_dir, loopback):
    case = wire_case(API, "incomplete_max_output_tokens_stream")
    events = await replay(loopback, case.name)
    done = done_of(events)
    partial = completed_output(case.response)[0]["content"][0]["text"]
    assert done.message.text() == partial
    assert partial.startswith("Sure! Here is a list of all 50 U.S. states:")
    assert done.usage == Usage(input=14, output=50)
    assert done.stop_reason is StopReason.MAX_TOKENS


async def test_wire_error_401_auth(wire_dir, loopback):
    with pytest.raises(APIError) as ei:
        await replay(loopback, "error_401_auth")
    err = ei.value
    assert err.status == 401 and not err.retryable
    assert "OPENAI_API_KEY" in str(err)
    assert "2345" not in str(err), "the masked key the API echoed is not repeated"


async def test_wire_error_400_orphan_reasoning_item(wire_dir, loopback):
    with pytest.raises(APIError) as ei:
        await replay(loopback, "error_400_orphan_reasoning_item")
    err = ei.value
    assert err.status == 400 and not err.retryable
    assert not isinstance(err, ContextOverflow)
    assert "provided without its required following item" in str(err)
    assert len(loopback.requests) == 1, "a 400 about the input is not retried"


# -- the request golden --------------------------------------------------------------------


async def test_request_golden(loopback):
    body = await sent(loopback, canonical_request(MODEL, "openai"))
    assert body == json.loads(GOLDEN.read_text())


# -- reasoning items -----------------------------------------------------------------------


async def test_request_asks_for_encrypted_reasoning_and_no_storage(loopback):
    body = await sent(loopback, req())
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["store"] is False


async def test_reasoning_item_is_kept_as_opaque_block_with_its_json(loopback):
    loopback.add(
        Stream().created().reasoning(["Plan."], encrypted="ENC+/=").message(["Hi"]).completed()
    )
    done = done_of(await run(make(loopback, name="work-openai"), req()))
    opaque = done.message.blocks[1]
    assert opaque.type == "opaque" and opaque.provider == "work-openai"
    assert json.loads(opaque.raw) == {
        "id": "rs_0abc",
        "type": "reasoning",
        "encrypted_content": "ENC+/=",
        "summary": [{"type": "summary_text", "text": "Plan."}],
    }


def _turn_with_reasoning(model: str = MODEL, provider: str = "openai") -> Message:
    item = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Think."}],
        "encrypted_content": "gAAAA-secret",
    }
    return Message(
        role="assistant",
        model=model,
        blocks=[
            Block.thinking_block("Think.", provider=f"{provider}-display"),
            Block.opaque(provider, json.dumps(item)),
            Block.text_block("Answer."),
        ],
    )


async def test_reasoning_item_is_replayed_verbatim_to_the_same_provider_and_model(loopback):
    turn = _turn_with_reasoning()
    body = await sent(loopback, req([Message.user("q"), turn, Message.user("more")]))
    items = body["input"]
    assert items[1] == json.loads(turn.blocks[1].raw)
    assert items[2] == {"type": "message", "role": "assistant", "content": "Answer."}
    assert sum(1 for i in items if i["type"] == "reasoning") == 1, "sent exactly once"


@pytest.mark.parametrize("model,name", [("gpt-5-mini", "openai"), (MODEL, "other-openai")])
async def test_reasoning_item_is_not_sent_to_another_model_or_provider(loopback, model, name):
    turn = _turn_with_reasoning()
    history = [Message.user("q"), turn, Message.user("more")]
    body = await sent(loopback, req(history, model=model), name=name)
    raw = loopback.requests[-1].body
    assert b"gAAAA-secret" not in raw and b"Think." not in raw
    assert [i["type"] for i in body["input"]] == ["message", "message", "message"]


async def test_reasoning_summary_is_shown_but_never_sent_outside_its_item(loopback):
    loopback.add(
        Stream()
        .created()
        .reasoning(["First part.", "Second part."], encrypted="E1")
        .message(["Done."])
        .completed()
    )
    events = await run(make(loopback), req())
    done = done_of(events)
    assert text_of(events, EventType.THINKING_DELTA) == "First part.\n\nSecond part."
    shown = done.message.blocks[0]
    assert shown.type == "thinking" and shown.provider == "openai-display"
    assert shown.text == "First part.\n\nSecond part."
    # replayed to the very same model: the summary travels inside the reasoning item only
    await sent(loopback, req([Message.user("q"), done.message, Message.user("next")]))
    assert loopback.requests[-1].body.count(b"First part.") == 1


async def test_reasoning_item_with_nothing_after_it_is_not_replayed(loopback):
    turn = _turn_with_reasoning()
    turn.blocks = turn.blocks[:2]  # e.g. cut off at max_output_tokens while reasoning
    body = await sent(loopback, req([Message.user("q"), turn, Message.user("go on")]))
    assert [i["type"] for i in body["input"]] == ["message", "message"]


async def test_reasoning_item_without_encrypted_content_is_not_replayed(loopback):
    turn = _turn_with_reasoning()
    turn.blocks[1] = Block.opaque("openai", {"id": "rs_1", "type": "reasoning", "summary": []})
    body = await sent(loopback, req([Message.user("q"), turn, Message.user("more")]))
    assert "reasoning" not in [i["type"] for i in body["input"]]


# -- effort --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "effort,wire", [("low", "low"), ("medium", "medium"), ("high", "high"), ("max", "xhigh")]
)
async def test_effort_maps_to_reasoning_effort(loopback, effort, wire):
    body = await sent(loopback, req(effort=effort))
    assert body["reasoning"] == {"effort": wire, "summary": "auto"}


async def test_empty_effort_leaves_the_model_default(loopback):
    body = await sent(loopback, req(effort=""))
    assert "effort" not in body["reasoning"]


async def test_reasoning_summary_option_can_turn_summaries_off(loopback):
    body = await sent(loopback, req(effort="low"), reasoning_summary="")
    assert body["reasoning"] == {"effort": "low"}


async def test_models_without_reasoning_get_no_reasoning_parameters(loopback):
    body = await sent(loopback, req(model="gpt-4o", effort="high"))
    assert "reasoning" not in body and "include" not in body
    assert body["store"] is False


def _param_error(param: str, message: str, code: str | None = None) -> Reply:
    body = {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }
    return Reply(status=400, body=json.dumps(body), content_type="application/json")


async def test_encrypted_reasoning_rejected_by_the_model_is_dropped_and_remembered(loopback):
    provider = make(loopback)
    loopback.add(_param_error("include", "Encrypted content is not supported with this model."))
    loopback.add(ok(), ok())
    request = req(model="gpt-5-chat-latest", effort="low")
    done = done_of(await run(provider, request))
    assert done.message.text() == "ok"
    first, retry = (r.json() for r in loopback.requests)
    assert "include" in first and "include" not in retry and "reasoning" not in retry
    await run(provider, request)
    assert "include" not in loopback.requests[-1].json(), "remembered for the model"


async def test_xhigh_effort_rejected_by_the_model_falls_back_to_high(loopback):
    loopback.add(
        _param_error(
            "reasoning.effort",
            "Unsupported value: 'xhigh' is not supported with the 'o3' model.",
            "unsupported_value",
        ),
        ok(),
    )
    await run(make(loopback), req(model="o3", effort="max"))
    assert [r.json()["reasoning"]["effort"] for r in loopback.requests] == ["xhigh", "high"]


# -- request shape -------------------------------------------------------------------------


async def test_system_blocks_become_joined_instructions(loopback):
    body = await sent(loopback, req(system=["Stable prefix.", "", "Session context."]))
    assert body["instructions"] == "Stable prefix.\n\nSession context."
    assert all(i.get("role") not in ("system", "developer") for i in body["input"])


async def test_tools_are_function_tools_without_strict_mode(loopback):
    tool = ToolSpec(name="grep", description="Search", input_schema={"type": "object"})
    body = await sent(loopback, req(tools=[tool]))
    assert body["tools"] == [
        {
            "type": "function",
            "name": "grep",
            "description": "Search",
            "parameters": {"type": "object"},
            "strict": False,
        }
    ]


async def test_tool_calls_and_results_become_function_call_items(loopback):
    args = '{ "path" :"a.py"}'  # odd spacing must survive
    history = [
        Message.user("read it"),
        Message(
            role="assistant", model="claude-x", blocks=[Block.tool_use("toolu_1", "read", args)]
        ),
        Message(role="user", blocks=[Block.tool_result("toolu_1", "content", is_error=True)]),
    ]
    body = await sent(loopback, req(history))
    assert body["input"][1:] == [
        {"type": "function_call", "call_id": "toolu_1", "name": "read", "arguments": args},
        {"type": "function_call_output", "call_id": "toolu_1", "output": "content"},
    ]


async def test_tool_result_images_go_inside_function_call_output(loopback):
    image = Block.image("image/png", PNG_1PX)
    history = [
        Message.user("shot"),
        Message(role="assistant", model=MODEL, blocks=[Block.tool_use("c1", "screenshot", "{}")]),
        Message(role="user", blocks=[Block.tool_result("c1", "captured", images=[image])]),
    ]
    body = await sent(loopback, req(history))
    assert body["input"][-1] == {
        "type": "function_call_output",
        "call_id": "c1",
        "output": [
            {"type": "input_text", "text": "captured"},
            {
                "type": "input_image",
                "image_url": f"data:image/png;base64,{PNG_1PX}",
                "detail": "auto",
            },
        ],
    }


async def test_user_images_become_input_image_data_urls(loopback):
    msg = Message(role="user", blocks=[Block.image("image/jpeg", "AAAA"), Block.text_block("?")])
    body = await sent(loopback, req([msg]))
    assert body["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [
                {
                    "type": "input_image",
                    "image_url": "data:image/jpeg;base64,AAAA",
                    "detail": "auto",
                },
                {"type": "input_text", "text": "?"},
            ],
        }
    ]


async def test_message_phase_is_kept_and_resent_to_the_same_model_only(loopback):
    loopback.add(Stream().created().message(["Checking."], phase="commentary").completed())
    done = done_of(await run(make(loopback), req()))
    block = done.message.blocks[0]
    assert (block.text, block.signature, block.provider) == ("Checking.", "commentary", "openai")
    history = [Message.user("q"), done.message, Message.user("go")]
    same = await sent(loopback, req(history))
    assert same["input"][1]["phase"] == "commentary"
    other = await sent(loopback, req(history, model="gpt-5-mini"))
    assert "phase" not in other["input"][1]


async def test_custom_headers_are_sent(loopback):
    await sent(loopback, req(), headers={"X-Team": "larik"})
    assert loopback.requests[-1].headers["x-team"] == "larik"


# -- usage and stop reasons ----------------------------------------------------------------


async def test_cached_input_tokens_are_reported_as_cache_read(loopback):
    loopback.add(
        Stream().created().message(["hi"]).completed(Usage(input=30, output=5, cache_read=70))
    )
    done = done_of(await run(make(loopback), req()))
    assert done.usage == Usage(input=30, output=5, cache_read=70, cache_write=0)


async def test_function_calls_make_the_stop_reason_tool_use(loopback):
    loopback.add(Stream().created().message(["Let me look."]).call("c1", "ls", ["{}"]).completed())
    done = done_of(await run(make(loopback), req()))
    assert done.stop_reason is StopReason.TOOL_USE
    assert [b.type for b in done.message.blocks] == ["text", "tool_use"]


async def test_incomplete_for_max_output_tokens_is_max_tokens(loopback):
    loopback.add(Stream().created().message(["cut"]).incomplete("max_output_tokens"))
    done = done_of(await run(make(loopback), req()))
    assert done.stop_reason is StopReason.MAX_TOKENS and done.message.text() == "cut"


async def test_incomplete_for_content_filter_is_refusal(loopback):
    loopback.add(Stream().created().message(["Sure, here"]).incomplete("content_filter"))
    done = done_of(await run(make(loopback), req()))
    assert done.stop_reason is StopReason.REFUSAL


async def test_refusal_content_is_shown_as_text_with_stop_reason_refusal(loopback):
    loopback.add(Stream().created().message(["I can't ", "help."], refusal=True).completed())
    events = await run(make(loopback), req())
    done = done_of(events)
    assert text_of(events, EventType.TEXT_DELTA) == "I can't help."
    assert done.message.text() == "I can't help."
    assert done.stop_reason is StopReason.REFUSAL


# -- errors --------------------------------------------------------------------------------


async def _fails(loopback: LoopbackServer, reply: Reply) -> tuple[APIError, list[StreamEvent]]:
    loopback.add(reply)
    events: list[StreamEvent] = []
    with pytest.raises(APIError) as ei:
        async for ev in make(loopback).stream(req()):
            events.append(ev)
    assert not [e for e in events if e.type is EventType.DONE]
    assert "\n" not in str(ei.value)
    return ei.value, events


@pytest.mark.parametrize(
    "code,status,retryable",
    [
        ("server_error", 500, True),
        ("rate_limit_exceeded", 429, True),
        ("invalid_prompt", 400, False),
    ],
)
async def test_response_failed_in_the_stream_is_an_api_error(loopback, code, status, retryable):
    reply = Stream().created().message(["partial"]).failed(code, "It went wrong.")
    err, events = await _fails(loopback, reply)
    assert (err.status, err.retryable) == (status, retryable)
    assert "It went wrong." in str(err) and code in str(err)
    assert text_of(events, EventType.TEXT_DELTA) == "partial"


async def test_error_event_in_the_stream_is_an_api_error(loopback):
    reply = Stream().created().message(["partial"]).error_event("server_error", "Overloaded.")
    err, _ = await _fails(loopback, reply)
    assert err.status == 500 and err.retryable and "Overloaded." in str(err)


async def test_context_length_exceeded_in_the_stream_is_context_overflow(loopback):
    reply = (
        Stream()
        .created()
        .failed("context_length_exceeded", "Your input exceeds the context window of this model.")
    )
    err, _ = await _fails(loopback, reply)
    assert isinstance(err, ContextOverflow) and not err.retryable


async def test_context_length_exceeded_http_400_is_context_overflow(loopback):
    reply = error_reply(
        400,
        "Your input exceeds the context window of this model. Please adjust your input.",
        code="context_length_exceeded",
    )
    err, _ = await _fails(loopback, reply)
    assert isinstance(err, ContextOverflow) and err.status == 400
    assert len(loopback.requests) == 1


async def test_retry_after_ms_header_is_honoured(loopback):
    reply = error_reply(429, "Rate limit reached.", code="rate_limit_exceeded")
    reply.headers["retry-after-ms"] = "1500"
    err, _ = await _fails(loopback, reply)
    assert err.status == 429 and err.retryable and err.retry_after == 1.5


async def test_sdk_does_not_retry_server_errors(loopback):
    loopback.add(error_reply(500, "boom"), ok())
    with pytest.raises(APIError):
        await run(make(loopback), req())
    assert len(loopback.requests) == 1, "retry is larik.llm.retry's job, not the SDK's"


async def test_stream_that_ends_without_a_terminal_event_is_a_retryable_error(loopback):
    reply = Stream().created().message(["half"]).reply()
    err, _ = await _fails(loopback, reply)
    assert err.status == 0 and err.retryable


async def test_refused_connection_is_a_retryable_error():
    provider = OpenAIResponsesProvider(endpoint("openai", "http://127.0.0.1:9/v1"))
    with pytest.raises(APIError) as ei:
        await run(provider, req())
    assert ei.value.status == 0 and ei.value.retryable


# -- key, base URL, imports ----------------------------------------------------------------


async def test_missing_key_names_the_env_var():
    with pytest.raises(MissingKeyError) as ei:
        await run(OpenAIResponsesProvider(resolve_endpoint("openai")), req())
    assert "OPENAI_API_KEY" in str(ei.value)


async def test_key_and_base_url_come_from_the_environment(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "env-key")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{loopback.url}/env")
    loopback.add(ok())
    done_of(await run(OpenAIResponsesProvider(resolve_endpoint("openai")), req()))
    recorded = loopback.requests[-1]
    assert recorded.path == "/env/responses"
    assert recorded.headers["authorization"] == "Bearer env-key"


async def test_api_key_env_names_another_variable(loopback, monkeypatch):
    table = {"api_key_env": "WORK_OPENAI_KEY", "base_url": f"{loopback.url}/v1"}
    config = Config(providers={"openai": table})
    with pytest.raises(MissingKeyError) as ei:
        await run(OpenAIResponsesProvider(resolve_endpoint("openai", config)), req())
    assert "WORK_OPENAI_KEY" in str(ei.value)
    monkeypatch.setenv("WORK_OPENAI_KEY", "work-key")
    loopback.add(error_reply(401, "Incorrect API key provided"))
    with pytest.raises(APIError) as ei:
        await run(OpenAIResponsesProvider(resolve_endpoint("openai", config)), req())
    assert "WORK_OPENAI_KEY" in str(ei.value)
    assert loopback.requests[-1].headers["authorization"] == "Bearer work-key"


@pytest.mark.parametrize("options", [{"reasoning_summary": "verbose"}, {"timeout": "soon"}])
def test_bad_options_are_a_config_error(options):
    with pytest.raises(ConfigError) as ei:
        OpenAIResponsesProvider(endpoint("openai", "https://o.example/v1"), **options)
    assert "provider openai" in str(ei.value) and next(iter(options)) in str(ei.value)


def test_importing_the_adapter_does_not_import_the_sdk():
    code = "import sys, larik.llm.providers.openai_responses;print('openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
