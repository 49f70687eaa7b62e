"""The openai-compatible adapter: wire recordings, the request golden, and its own rules."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from larik.config import Config
from larik.llm.endpoint import resolve_endpoint
from larik.llm.errors import (
    APIError,
    ConfigError,
    ContextOverflow,
    CutReply,
    MissingKeyError,
    ResolveError,
)
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.llm.providers.openai_compat_convert import ThinkSplitter, split_think, stop_reason_from
from larik.llm.providers.presets import PRESETS, preset
from larik.llm.toolcalls import TOOL_IMAGES_NOTE
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
from tests.llm.providers.conformance import PNG_1PX, TOOLS, canonical_request
from tests.llm.providers.kits.openai_compat import KIT, MODEL, chunk, reply
from tests.loopback import LoopbackServer, Reply, wire_case

GOLDEN = Path(__file__).parent / "golden" / "openai_compat_request.json"
NAME = "openai-compatible"


def make(
    server: LoopbackServer,
    name: str = NAME,
    headers: Any = None,
    api_key: str | None = "dummy-key",
    **kw: Any,
) -> OpenAICompatProvider:
    ep = endpoint(NAME, f"{server.url}/v1", api_key, name=name, headers=headers)
    return OpenAICompatProvider(ep, **kw)


def routed(name: str, base_url: str, **table: Any) -> OpenAICompatProvider:
    """Provider ``name`` as routing builds it (key from the config or environment)."""
    config = Config(providers={name: {"base_url": base_url, **table}})
    return OpenAICompatProvider(resolve_endpoint(name, config))


def req(messages: list[Message] | None = None, **kw: Any) -> Request:
    kw.setdefault("tools", TOOLS)
    return Request(model=MODEL, messages=messages or [Message.user("hi")], **kw)


async def drain(provider: OpenAICompatProvider, request: Request) -> list[StreamEvent]:
    return [ev async for ev in provider.stream(request)]


def done_of(events: list[StreamEvent]) -> StreamEvent:
    dones = [e for e in events if e.type is EventType.DONE]
    assert len(dones) == 1 and events[-1] is dones[0]
    return dones[0]


def deltas(events: list[StreamEvent], kind: EventType) -> str:
    return "".join(e.text for e in events if e.type is kind)


def text_reply(*pieces: str, finish: str = "stop", usage: dict | None = None) -> Reply:
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": p}) for p in pieces]
    chunks.append(chunk(finish=finish))
    if usage is not None:
        chunks.append(chunk(usage=usage, choices=False))
    return reply(chunks)


def tool_reply(name: str, args: str, call_id: str = "call_9") -> Reply:
    call = {"index": 0, "id": call_id, "type": "function"}
    call["function"] = {"name": name, "arguments": args}
    return reply([chunk({"role": "assistant", "tool_calls": [call]}), chunk(finish="tool_calls")])


def json_error(status: int, error: dict[str, Any]) -> Reply:
    return Reply(status=status, body=json.dumps({"error": error}), content_type="application/json")


# -- wire recordings (../shared/wire/openai-chat), one test per case ------------------------


async def test_wire_text_stream_include_usage(loopback, wire_dir):
    loopback.add(wire_case("openai-chat", "text_stream_include_usage").reply())
    events = await drain(make(loopback), req(tools=[]))
    done = done_of(events)
    assert deltas(events, EventType.TEXT_DELTA) == "4200 + 42 equals 4242."
    assert done.message.text() == "4200 + 42 equals 4242."
    assert done.usage == Usage(input=16, output=10)
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_tool_calls_parallel_stream(loopback, wire_dir):
    loopback.add(wire_case("openai-chat", "tool_calls_parallel_stream").reply())
    tools = [ToolSpec(name="secret_retrieval_tool")]
    events = await drain(make(loopback), req(tools=tools))
    starts = [(e.text, e.id) for e in events if e.type is EventType.TOOL_USE_START]
    assert starts == [
        ("secret_retrieval_tool", "call_M26z19sncd7b4LBgzKRRbaUE"),
        ("secret_retrieval_tool", "call_KPXe5NX7IcKkaBUhc6dto2QV"),
    ]
    done = done_of(events)
    calls = done.message.tool_uses()
    assert [(c.id, c.name, c.input) for c in calls] == [
        ("call_M26z19sncd7b4LBgzKRRbaUE", "secret_retrieval_tool", '{"password": "mellon"}'),
        ("call_KPXe5NX7IcKkaBUhc6dto2QV", "secret_retrieval_tool", '{"password": "radiance"}'),
    ]
    assert done.usage == Usage(input=75, output=53)
    assert done.stop_reason is StopReason.TOOL_USE


async def test_wire_deepseek_reasoning_content_stream(loopback, wire_dir):
    loopback.add(wire_case("openai-chat", "deepseek_reasoning_content_stream").reply())
    provider = make(loopback, name="deepseek")
    events = await drain(provider, req(tools=[]))
    done = done_of(events)
    thinking = deltas(events, EventType.THINKING_DELTA)
    assert thinking.startswith("Hmm, the user just said")
    blocks = done.message.blocks
    assert [b.type for b in blocks] == ["thinking", "text"]
    assert blocks[0].text == thinking and blocks[0].provider == "deepseek"
    assert blocks[0].signature == ""
    assert done.message.text() == "Hello there! 😊 How can I help you today?"
    assert done.usage == Usage(input=6, output=212)
    assert done.stop_reason is StopReason.END_TURN


async def test_wire_openrouter_midstream_error(loopback, wire_dir):
    loopback.add(wire_case("openai-chat", "openrouter_midstream_error").reply())
    events: list[StreamEvent] = []
    with pytest.raises(APIError) as ei:
        async for ev in make(loopback, name="openrouter").stream(req(tools=[])):
            events.append(ev)
    assert "Token limit reached" in str(ei.value)
    assert ei.value.status == 400 and not ei.value.retryable
    assert deltas(events, EventType.THINKING_DELTA).startswith("We need to respond")
    assert not [e for e in events if e.type is EventType.DONE]


async def test_wire_length_finish_reasoning_tokens_stream(loopback, wire_dir):
    loopback.add(wire_case("openai-chat", "length_finish_reasoning_tokens_stream").reply())
    done = done_of(await drain(make(loopback), req(tools=[])))
    assert done.message.blocks == []
    assert done.usage == Usage(input=13, output=50)
    assert done.stop_reason is StopReason.MAX_TOKENS


async def test_wire_error_401_auth(loopback, wire_dir):
    loopback.add(wire_case("openai-chat", "error_401_auth").reply())
    with pytest.raises(APIError) as ei:
        await drain(make(loopback, name="groq"), req())
    err = ei.value
    assert err.status == 401 and not err.retryable
    assert "GROQ_API_KEY" in str(err)
    assert "2345" not in str(err), "the vendor's masked key must not be repeated"


async def test_wire_error_400_unsupported_parameter(loopback, wire_dir):
    loopback.add(wire_case("openai-chat", "error_400_unsupported_parameter").reply())
    with pytest.raises(APIError) as ei:
        await drain(make(loopback), req())
    err = ei.value
    assert type(err) is APIError and err.status == 400 and not err.retryable
    assert "Unsupported parameter: 'stop'" in str(err)


async def test_wire_openrouter_429_rate_limited(loopback, wire_dir):
    loopback.add(wire_case("openai-chat", "openrouter_429_rate_limited").reply())
    with pytest.raises(APIError) as ei:
        await drain(make(loopback, name="openrouter"), req())
    err = ei.value
    assert err.status == 429 and err.retryable
    assert "rate-limited upstream" in str(err)


# -- the request golden -----------------------------------------------------------------------


async def test_request_golden_canonical_conversation(loopback):
    loopback.add(text_reply("ok"))
    await drain(KIT.make(loopback.url), canonical_request(MODEL, NAME))
    sent = loopback.requests[-1]
    assert sent.path == "/v1/chat/completions"
    assert sent.json() == json.loads(GOLDEN.read_text())


# -- presets and keys -------------------------------------------------------------------------


def test_presets_cover_the_required_vendors_and_local_servers():
    required = {
        "openrouter", "groq", "deepseek", "nvidia-nim", "together", "fireworks",
        "cerebras", "mistral", "xai", "lmstudio", "llamacpp", "vllm",
    }  # fmt: skip
    assert required <= set(PRESETS)
    nim = preset("nvidia-nim")
    assert nim.base_url == "https://integrate.api.nvidia.com/v1" and nim.env == ("NVIDIA_API_KEY",)
    assert preset("llamacpp").base_url == "http://127.0.0.1:8080/v1"
    assert preset("vllm").base_url == "http://127.0.0.1:8000/v1"
    assert preset("lmstudio").base_url == "http://127.0.0.1:1234/v1"
    for p in PRESETS.values():
        assert p.local == p.base_url.startswith("http://127.0.0.1"), p.name
        assert p.local or p.base_url.startswith("https://"), p.name
        assert p.local or p.env, f"{p.name} is hosted and must name its key variable"


def test_unknown_preset_is_a_resolve_error_naming_the_known_ones():
    with pytest.raises(ResolveError, match="llamacpp"):
        preset("no-such-vendor")


def test_custom_endpoint_without_base_url_is_a_config_error():
    config = Config(providers={"my-server": {"type": "openai-compatible"}})
    with pytest.raises(ConfigError, match=r"providers\.my-server\.base_url"):
        resolve_endpoint("my-server", config)
    with pytest.raises(ConfigError, match="base_url"):
        OpenAICompatProvider(endpoint(NAME, "", name="my-server"))


def test_bad_reasoning_history_is_a_config_error():
    with pytest.raises(ConfigError, match="reasoning_history"):
        OpenAICompatProvider(resolve_endpoint("llamacpp"), reasoning_history="sometimes")  # type: ignore[arg-type]


def test_unknown_option_is_a_config_error_naming_it():
    with pytest.raises(ConfigError, match="num_ctx"):
        OpenAICompatProvider(resolve_endpoint("llamacpp"), num_ctx=4096)


async def test_sampling_options_and_extra_body_are_sent(loopback):
    loopback.add(text_reply("ok"))
    provider = make(loopback, temperature=0.2, seed=7, extra_body={"top_k": 20})
    await drain(provider, req())
    body = loopback.requests[-1].json()
    assert (body["temperature"], body["seed"], body["top_k"]) == (0.2, 7, 20)


async def test_a_models_temperature_in_the_request_wins_over_the_option(loopback):
    loopback.add(text_reply("ok"), text_reply("ok"))
    provider = make(loopback, temperature=0.2)
    await drain(provider, req(temperature=0.0))
    await drain(provider, req())
    first, second = (r.json() for r in loopback.requests[-2:])
    assert first["temperature"] == 0.0 and second["temperature"] == 0.2


async def test_a_models_sampling_is_sent_and_the_repeat_penalty_as_the_server_spells_it(
    loopback,
):
    loopback.add(text_reply("ok"), text_reply("ok"), text_reply("ok"))
    sampling = {"temperature": 0.2, "top_p": 0.9, "repeat_penalty": 1.1}
    await drain(make(loopback, top_p=0.5), req(**sampling))  # a server on this machine
    body = loopback.requests[-1].json()
    assert (body["temperature"], body["top_p"], body["repeat_penalty"]) == (0.2, 0.9, 1.1)
    vllm = make(loopback)
    vllm._kinds["qwen3-coder-30b"] = "vllm"  # what the probe found
    await drain(vllm, req(**sampling))
    body = loopback.requests[-1].json()
    assert body["repetition_penalty"] == 1.1 and "repeat_penalty" not in body
    hosted = make(loopback)
    hosted.endpoint = endpoint(NAME, "https://api.example.com/v1")  # a vendor refuses fields
    hosted.base_url = f"{loopback.url}/v1"  # (reached on loopback all the same)
    await drain(hosted, req(**sampling))
    body = loopback.requests[-1].json()
    assert body["temperature"] == 0.2 and "repeat_penalty" not in body


async def test_hosted_preset_without_key_raises_missing_key_naming_env_var(loopback):
    provider = routed("groq", f"{loopback.url}/v1")
    with pytest.raises(MissingKeyError, match="GROQ_API_KEY"):
        await drain(provider, req())
    assert loopback.requests == []


async def test_local_preset_needs_no_key(loopback):
    loopback.add(text_reply("hello"))
    provider = routed("llamacpp", f"{loopback.url}/v1")
    done = done_of(await drain(provider, req()))
    assert done.message.text() == "hello"


async def test_key_is_read_from_the_env_var_api_key_env_names(loopback, monkeypatch):
    monkeypatch.setenv("MY_SERVER_KEY", "sk-from-env-123456")
    provider = routed(
        "my-server", f"{loopback.url}/v1", type="openai-compatible", api_key_env="MY_SERVER_KEY"
    )
    loopback.add(text_reply("ok"))
    await drain(provider, req())
    assert loopback.requests[-1].headers["authorization"] == "Bearer sk-from-env-123456"


async def test_preset_and_custom_headers_are_sent_but_openai_account_headers_are_not(
    loopback, monkeypatch
):
    monkeypatch.setenv("OPENAI_ORG_ID", "org-secret")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-secret")
    loopback.add(text_reply("ok"))
    provider = make(loopback, name="openrouter", headers={"X-Extra": "1"})
    await drain(provider, req())
    headers = loopback.requests[-1].headers
    assert headers["x-title"] == "Larik" and headers["x-extra"] == "1"
    assert "openai-organization" not in headers and "openai-project" not in headers


async def test_the_sdks_own_environment_is_not_used(loopback, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret-123456")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_CUSTOM_HEADERS", "Authorization: Bearer sk-openai-secret-123456")
    loopback.add(text_reply("ok"), text_reply("ok"))
    local = routed("llamacpp", f"{loopback.url}/v1")
    await drain(local, req())
    await drain(make(loopback, headers={"Authorization": "Token mine"}), req())
    sent = [r.headers["authorization"] for r in loopback.requests]
    assert sent == ["Bearer no-key", "Token mine"]


# -- streaming rules --------------------------------------------------------------------------


async def test_usage_is_requested_with_stream_options(loopback):
    loopback.add(text_reply("ok"))
    await drain(make(loopback), req())
    assert loopback.requests[-1].json()["stream_options"] == {"include_usage": True}


async def test_preset_without_stream_usage_sends_no_stream_options(loopback):
    loopback.add(text_reply("ok"))
    await drain(make(loopback, name="mistral"), req())
    assert "stream_options" not in loopback.requests[-1].json()


async def test_cached_tokens_are_cache_read_and_not_input(loopback):
    usage = {
        "prompt_tokens": 1000,
        "completion_tokens": 20,
        "prompt_tokens_details": {"cached_tokens": 800, "cache_write_tokens": 150},
    }
    loopback.add(text_reply("ok", usage=usage))
    done = done_of(await drain(make(loopback), req()))
    assert done.usage == Usage(input=50, output=20, cache_read=800, cache_write=150)


async def test_deepseek_prompt_cache_hit_tokens_are_cache_read(loopback):
    usage = {
        "prompt_tokens": 500,
        "completion_tokens": 5,
        "prompt_cache_hit_tokens": 384,
        "prompt_cache_miss_tokens": 116,
    }
    loopback.add(text_reply("ok", usage=usage))
    done = done_of(await drain(make(loopback, name="deepseek"), req()))
    assert done.usage == Usage(input=116, output=5, cache_read=384)


async def test_reasoning_field_streams_as_thinking(loopback):
    loopback.add(
        reply(
            [
                chunk({"role": "assistant", "content": "", "reasoning": "Step one. "}),
                chunk({"content": "", "reasoning": "Step two."}),
                chunk({"content": "Done.", "reasoning": None}),
                chunk(finish="stop"),
            ]
        )
    )
    events = await drain(make(loopback), req())
    assert deltas(events, EventType.THINKING_DELTA) == "Step one. Step two."
    done = done_of(events)
    assert done.message.blocks == [
        Block.thinking_block("Step one. Step two.", provider=NAME),
        Block.text_block("Done."),
    ]


async def test_inline_think_tags_split_across_deltas_become_thinking(loopback):
    loopback.add(text_reply("<th", "ink>Let me", " think.</th", "ink>\n\nThe ", "answer."))
    events = await drain(make(loopback, name="llamacpp"), req())
    assert deltas(events, EventType.THINKING_DELTA) == "Let me think."
    assert deltas(events, EventType.TEXT_DELTA) == "The answer."
    done = done_of(events)
    assert done.message.blocks == [
        Block.thinking_block("Let me think.", provider="llamacpp"),
        Block.text_block("The answer."),
    ]


@pytest.mark.parametrize(
    "content",
    [
        "<think>\nweigh options\n</think>\n\nAnswer: 42",
        "  <think>a</think>b",
        "<think>never closed",
        "no tags <think>here</think>",
        "<thinking is not a tag",
        "\n",
    ],
)
def test_think_splitter_agrees_with_final_split_at_every_cut(content):
    expected = split_think(content)
    for cut_a in range(len(content) + 1):
        for cut_b in range(cut_a, len(content) + 1):
            splitter = ThinkSplitter()
            got = [
                splitter.feed(p) for p in (content[:cut_a], content[cut_a:cut_b], content[cut_b:])
            ]
            got.append(splitter.finish())
            thinking = "".join(t for t, _ in got)
            text = "".join(x for _, x in got)
            assert (thinking, text) == expected, (cut_a, cut_b)


def _history(thinking_model: str) -> list[Message]:
    return [
        Message.user("q1"),
        Message(
            role="assistant",
            model=thinking_model,
            blocks=[Block.thinking_block("private chain", provider=NAME), Block.text_block("A1")],
        ),
        Message.user("q2"),
    ]


@pytest.mark.parametrize(
    "mode,expected",
    [
        ("field", {"role": "assistant", "content": "A1", "reasoning_content": "private chain"}),
        ("inline", {"role": "assistant", "content": "<think>private chain</think>\n\nA1"}),
        ("strip", {"role": "assistant", "content": "A1"}),
    ],
)
async def test_reasoning_history_mode_decides_how_own_thinking_is_replayed(
    loopback, mode, expected
):
    loopback.add(text_reply("ok"))
    await drain(make(loopback, reasoning_history=mode), req(_history(MODEL)))
    assert loopback.requests[-1].json()["messages"][1] == expected


async def test_thinking_of_another_model_is_never_replayed(loopback):
    loopback.add(text_reply("ok"))
    await drain(make(loopback, reasoning_history="field"), req(_history("other-model")))
    body = loopback.requests[-1].body
    assert b"private chain" not in body and b"A1" in body


async def test_tool_results_are_tool_messages_and_their_images_follow_in_one_user_message(
    loopback,
):
    image = Block.image("image/png", PNG_1PX)
    history = [
        Message.user("look"),
        Message(
            role="assistant",
            model=MODEL,
            blocks=[Block.tool_use("c1", "read_file", "{}"), Block.tool_use("c2", "read_file", "")],
        ),
        Message(
            role="user",
            blocks=[
                Block.tool_result("c1", "one", images=[image]),
                Block.tool_result("c2", "boom", is_error=True, images=[image]),
            ],
        ),
    ]
    loopback.add(text_reply("ok"))
    await drain(make(loopback), req(history))
    messages = loopback.requests[-1].json()["messages"]
    assert messages[1]["tool_calls"][1]["function"]["arguments"] == "{}"
    assert messages[2:4] == [
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "Error: boom"},
    ]
    url = {"url": f"data:image/png;base64,{PNG_1PX}"}
    assert messages[4] == {
        "role": "user",
        "content": [
            {"type": "text", "text": TOOL_IMAGES_NOTE},
            {"type": "image_url", "image_url": url},
            {"type": "image_url", "image_url": url},
        ],
    }


async def test_invalid_tool_arguments_are_repaired(loopback):
    loopback.add(tool_reply("read_file", '{"path": "a.py",'))
    done = done_of(await drain(make(loopback), req()))
    call = done.message.tool_uses()[0]
    assert call.input_dict() == {"path": "a.py"}
    assert done.stop_reason is StopReason.TOOL_USE


async def test_unrepairable_tool_arguments_stay_raw_without_crashing(loopback):
    loopback.add(tool_reply("read_file", "path=a.py please"))
    done = done_of(await drain(make(loopback), req()))
    call = done.message.tool_uses()[0]
    assert call.input == "path=a.py please"
    with pytest.raises(ValueError):
        call.input_dict()


async def test_tool_call_written_as_text_is_recovered_when_tools_were_offered(loopback):
    text = 'Sure.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "x"}}\n</tool_call>'
    loopback.add(text_reply(text))
    done = done_of(await drain(make(loopback, name="llamacpp"), req()))
    assert done.message.text() == "Sure."
    (call,) = done.message.tool_uses()
    assert call.name == "read_file" and call.input_dict() == {"path": "x"} and call.id
    assert done.stop_reason is StopReason.TOOL_USE


async def test_text_tool_call_is_not_recovered_without_tools_or_for_unknown_names(loopback):
    text = '{"name": "read_file", "arguments": {"path": "x"}}'
    loopback.add(text_reply(text), text_reply(text.replace("read_file", "rm_rf")))
    no_tools = done_of(await drain(make(loopback), req(tools=[])))
    unknown = done_of(await drain(make(loopback), req()))
    for done in (no_tools, unknown):
        assert done.message.tool_uses() == [] and done.stop_reason is StopReason.END_TURN
    assert unknown.message.text().startswith('{"name": "rm_rf"')


@pytest.mark.parametrize(
    "finish,has_calls,expected",
    [
        ("stop", False, StopReason.END_TURN),
        ("tool_calls", True, StopReason.TOOL_USE),
        ("function_call", True, StopReason.TOOL_USE),
        ("length", False, StopReason.MAX_TOKENS),
        ("length", True, StopReason.MAX_TOKENS),
        ("content_filter", False, StopReason.REFUSAL),
        ("stop", True, StopReason.TOOL_USE),
        (None, False, StopReason.END_TURN),
        ("something_new", False, StopReason.END_TURN),
    ],
)
def test_finish_reason_maps_to_stop_reason(finish, has_calls, expected):
    assert stop_reason_from(finish, has_calls) is expected


async def test_local_server_saying_stop_with_tool_calls_is_tool_use(loopback):
    call = {"index": 0, "id": "c", "type": "function"}
    call["function"] = {"name": "read_file", "arguments": "{}"}
    loopback.add(reply([chunk({"role": "assistant", "tool_calls": [call]}), chunk(finish="stop")]))
    done = done_of(await drain(make(loopback), req()))
    assert done.stop_reason is StopReason.TOOL_USE


async def test_in_band_stream_error_is_an_api_error(loopback):
    error = chunk({"content": ""})
    error["error"] = {"code": 429, "message": "Rate limit exceeded upstream"}
    loopback.add(reply([chunk({"role": "assistant", "content": "par"}), error]))
    with pytest.raises(APIError) as ei:
        await drain(make(loopback), req())
    assert ei.value.status == 429 and ei.value.retryable


@pytest.mark.parametrize(
    "error",
    [
        {
            "message": "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.",
            "type": "invalid_request_error",
            "code": "context_length_exceeded",
        },
        {
            "code": 400,
            "message": "the request exceeds the available context size, try increasing it",
            "type": "exceed_context_size_error",
        },
    ],
    ids=["openai-style", "llamacpp"],
)
async def test_prompt_too_long_is_context_overflow(loopback, error):
    loopback.add(json_error(400, error))
    with pytest.raises(ContextOverflow) as ei:
        await drain(make(loopback), req())
    assert not ei.value.retryable


async def test_a_refused_connection_to_a_local_server_fails_fast_naming_the_url():
    provider = routed("llamacpp", "http://127.0.0.1:9/v1")
    with pytest.raises(APIError) as ei:
        await drain(provider, req())
    assert ei.value.status == 0 and not ei.value.retryable
    assert "cannot reach http://127.0.0.1:9/v1: is the server running?" in str(ei.value)


async def test_a_refused_connection_to_a_remote_server_stays_retryable():
    # the test network guard refuses every non-loopback connect before anything is sent
    provider = OpenAICompatProvider(endpoint(NAME, "https://192.0.2.1/v1", "k", name="x"))
    with pytest.raises(APIError) as ei:
        await drain(provider, req())
    assert ei.value.status == 0 and ei.value.retryable
    assert "cannot reach https://192.0.2.1/v1" in str(ei.value)
    assert "is the server running" not in str(ei.value)  # that is for this machine's servers


async def test_an_html_page_instead_of_an_event_stream_names_its_type_and_the_path(loopback):
    page = "<html><body><h1>502 Bad Gateway</h1><p>data: see the admin</p></body></html>"
    loopback.add(Reply(body=page, content_type="text/html; charset=utf-8"))
    with pytest.raises(APIError) as ei:
        await drain(make(loopback), req())
    assert "expected an event stream from /v1/chat/completions, got text/html" in str(ei.value)
    assert not ei.value.retryable  # a wrong base_url or a proxy page: sending it again won't help


async def test_an_empty_event_stream_is_a_cut_reply(loopback):
    loopback.add(Reply(body=""))
    with pytest.raises(CutReply, match="before a finish reason"):
        await drain(make(loopback), req())


async def test_chunk_the_accumulator_rejects_is_an_api_error_not_a_crash(loopback):
    call = {"index": 1, "id": "c", "type": "function"}  # index 1 with no call 0
    call["function"] = {"name": "read_file", "arguments": ""}
    more = {"index": 1, "function": {"arguments": "{}"}}
    loopback.add(
        reply(
            [
                chunk({"role": "assistant", "content": ""}),
                chunk({"tool_calls": [call]}),
                chunk({"tool_calls": [more]}),
            ]
        )
    )
    with pytest.raises(APIError, match="malformed"):
        await drain(make(loopback), req())


async def test_content_that_is_not_a_string_is_an_api_error_not_a_crash(loopback):
    parts = [{"type": "text", "text": "a"}]
    loopback.add(reply([chunk({"role": "assistant", "content": parts}), chunk({"content": parts})]))
    with pytest.raises(APIError, match="malformed"):
        await drain(make(loopback), req())


async def test_tool_calls_sent_without_index_are_kept_apart(loopback):
    def whole(call_id: str, path: str) -> dict[str, Any]:
        args = json.dumps({"path": path})
        fn = {"name": "read_file", "arguments": args}
        return {"id": call_id, "type": "function", "function": fn}

    loopback.add(
        reply(
            [
                chunk({"role": "assistant", "tool_calls": [whole("a", "1.py")]}),
                chunk({"tool_calls": [whole("b", "2.py")]}),
                chunk(finish="tool_calls"),
            ]
        )
    )
    events = await drain(make(loopback), req())
    assert [e.id for e in events if e.type is EventType.TOOL_USE_START] == ["a", "b"]
    calls = done_of(events).message.tool_uses()
    assert [(c.id, c.input_dict()) for c in calls] == [
        ("a", {"path": "1.py"}),
        ("b", {"path": "2.py"}),
    ]


@pytest.mark.parametrize(
    "name,effort,expected",
    [
        (NAME, "low", {"reasoning_effort": "low"}),
        (NAME, "max", {"reasoning_effort": "high"}),
        (NAME, "", {}),
        ("openrouter", "medium", {"reasoning": {"effort": "medium"}}),
        ("deepseek", "high", {}),
    ],
)
async def test_effort_is_mapped_per_preset(loopback, name, effort, expected):
    loopback.add(text_reply("ok"))
    await drain(make(loopback, name=name), req(effort=effort))
    body = loopback.requests[-1].json()
    sent = {k: body[k] for k in ("reasoning_effort", "reasoning") if k in body}
    assert sent == expected


# -- ModelProber ------------------------------------------------------------------------------


def _json(body: Any) -> Reply:
    return Reply(body=json.dumps(body), content_type="application/json")


async def test_llamacpp_prober_reads_n_ctx_and_tool_caps_from_props(loopback):
    props = {
        "default_generation_settings": {"n_ctx": 2048},
        "chat_template": "{{ messages }}",
        "chat_template_caps": {"supports_tools": True},
    }
    loopback.route("/props", _json(props))
    provider = make(loopback, name="llamacpp")
    assert await provider.context_window("any") == 2048
    assert await provider.supports_tools("any") is True
    assert [r.path for r in loopback.requests] == ["/props"], "the probe is cached"


async def test_llamacpp_prober_falls_back_to_top_level_n_ctx_and_template_text(loopback):
    props = {"n_ctx": 4096, "chat_template": "{% if tools %}...{% endif %}"}
    loopback.route("/props", _json(props))
    provider = make(loopback, name="llamacpp")
    assert await provider.context_window("m") == 4096
    assert await provider.supports_tools("m") is True


async def test_tool_support_is_unknown_unless_reported(loopback):
    loopback.route("/props", _json({"n_ctx": 4096, "chat_template": "{{ messages }}"}))
    assert await make(loopback, name="llamacpp").supports_tools("m") is None


async def test_vllm_prober_reads_max_model_len(loopback):
    models = {"data": [{"id": "other", "max_model_len": 1}, {"id": "qwen", "max_model_len": 32768}]}
    loopback.route("/v1/models", _json(models))
    provider = make(loopback, name="vllm")
    assert await provider.context_window("qwen") == 32768
    assert await provider.supports_tools("qwen") is None


async def test_llamacpp_reports_the_models_size_from_its_models_listing(loopback):
    meta = {"n_ctx": 8192, "n_params": 630167424}
    loopback.route("/v1/models", _json({"data": [{"id": "qwen", "meta": meta}]}))
    assert await make(loopback, name="llamacpp").model_params("qwen") == pytest.approx(0.63, 0.01)
    for lie in ({"n_params": "big"}, {"n_params": -5}, {"n_params": True}, "x"):
        loopback.route("/v1/models", _json({"data": [{"id": "qwen", "meta": lie}]}))
        assert await make(loopback, name="llamacpp").model_params("qwen") is None
    loopback.route("/v1/models", Reply(status=500, body="{}", content_type="application/json"))
    assert await make(loopback, name="llamacpp").model_params("qwen") is None
    assert await make(loopback, name="groq").model_params("qwen") is None


async def test_lmstudio_prober_reads_loaded_then_max_context_length(loopback):
    loopback.route(
        "/api/v0/models/qwen",
        _json(
            {
                "loaded_context_length": 8192,
                "max_context_length": 131072,
                "capabilities": ["tool_use"],
            }
        ),
    )
    loopback.route("/api/v0/models/mistral", _json({"max_context_length": 32768}))
    provider = make(loopback, name="lmstudio")
    assert await provider.context_window("qwen") == 8192
    assert await provider.supports_tools("qwen") is True
    assert await provider.context_window("mistral") == 32768


async def test_custom_endpoint_tries_each_probe(loopback):
    loopback.route("/props", Reply(status=404, body="not found", content_type="text/plain"))
    loopback.route("/v1/models", _json({"data": [{"id": "m", "max_model_len": 16384}]}))
    assert await make(loopback, name="my-server").context_window("m") == 16384


async def test_probe_failures_are_none_never_errors(loopback):
    loopback.route("/props", Reply(status=500, body="{}", content_type="application/json"))
    provider = make(loopback, name="llamacpp")
    assert await provider.context_window("m") is None
    assert await provider.supports_tools("m") is None
    loopback.route("/props", Reply(body="not json", content_type="application/json"))
    assert await provider.context_window("m") is None
    dead = routed("vllm", "http://127.0.0.1:9/v1")
    assert await dead.context_window("m") is None


async def test_hosted_presets_do_not_probe(loopback):
    assert await make(loopback, name="groq").context_window("m") is None
    assert loopback.requests == []


# -- laziness ---------------------------------------------------------------------------------


def test_importing_the_adapter_imports_no_sdk():
    code = (
        "import sys, larik.llm.providers.openai_compat, larik.llm.toolcalls;"
        "bad = [m for m in ('openai', 'httpx2', 'json_repair') if m in sys.modules];"
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
