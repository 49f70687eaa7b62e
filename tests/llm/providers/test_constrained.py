"""Grammar-constrained tool calls (providers/constrained.py) against a fake llama.cpp on loopback.

The constraint (``response_format`` with the reply schema) goes only to a server the prober
identified as llama.cpp or vLLM, only when the model's profile or the provider option asks, and
never to a hosted vendor. A server that refuses it gets the request once more without it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from larik.llm.errors import APIError, ConfigError
from larik.llm.providers.constrained import NOTE, read_reply
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.llm.types import EventType, Message, Request, StopReason, StreamEvent, ToolSpec
from tests.llm.helpers import endpoint
from tests.llm.providers.kits.openai_compat import MODEL, chunk, reply
from tests.loopback import LoopbackServer, Reply

TOOLS = [
    ToolSpec(
        name="read_file",
        description="Read a file",
        input_schema={
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    ),
    ToolSpec(name="bash", input_schema={"type": "object", "properties": {"command": {}}}),
]
PROPS = {"default_generation_settings": {"n_ctx": 8192}, "chat_template_caps": {}}


def provider(server: LoopbackServer, name: str = "llamacpp", **kw: Any) -> OpenAICompatProvider:
    return OpenAICompatProvider(endpoint(name, f"{server.url}/v1", None, name=name), **kw)


def request(constrain: bool | None = True, **kw: Any) -> Request:
    kw.setdefault("tools", TOOLS)
    return Request(
        model=MODEL,
        system=["You are a test."],
        messages=[Message.user("read a.py")],
        constrain_tools=constrain,
        **kw,
    )


def llamacpp(server: LoopbackServer) -> LoopbackServer:
    return server.route("/props", Reply(body=json.dumps(PROPS), content_type="application/json"))


def content_reply(text: str) -> Reply:
    pieces = [text[i : i + 7] for i in range(0, len(text), 7)]
    chunks = [chunk({"role": "assistant", "content": ""})]
    chunks += [chunk({"content": p}) for p in pieces]
    return reply([*chunks, chunk(finish="stop")])


async def drain(p: OpenAICompatProvider, req: Request) -> list[StreamEvent]:
    return [ev async for ev in p.stream(req)]


def chats(server: LoopbackServer) -> list[dict[str, Any]]:
    return [r.json() for r in server.requests if r.path.endswith("/chat/completions")]


def deltas(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if e.type is EventType.TEXT_DELTA)


async def test_a_small_model_on_llamacpp_gets_the_reply_schema_and_its_call_parses(loopback):
    llamacpp(loopback).add(content_reply('{"name": "read_file", "arguments": {"path": "a.py"}}'))
    p = provider(loopback)
    events = await drain(p, request())
    [body] = chats(loopback)
    schema = body["response_format"]["json_schema"]["schema"]
    names = [o["properties"].get("name", {}).get("const") for o in schema["anyOf"]]
    assert names == [None, "read_file", "bash"]  # the answer first: the way out
    assert schema["anyOf"][1]["properties"]["arguments"]["required"] == ["path"]
    assert schema["anyOf"][0]["required"] == ["answer"]
    assert body["messages"][0]["content"].endswith(NOTE)
    assert "grammar" not in body, "llama.cpp refuses a GBNF grammar together with tools"
    assert [t["function"]["name"] for t in body["tools"]] == ["read_file", "bash"]
    done = events[-1]
    assert done.stop_reason is StopReason.TOOL_USE
    [call] = done.message.tool_uses()
    assert (call.name, call.input_dict()) == ("read_file", {"path": "a.py"})
    assert deltas(events) == "", "the reply's JSON is not shown as text"
    loopback.add(content_reply('{"answer": "ok"}'))
    await drain(p, request())
    assert [r.path for r in loopback.requests].count("/props") == 1


async def test_the_answer_is_unwrapped_and_shown_once(loopback):
    llamacpp(loopback).add(content_reply('{"answer": "It adds \\"two\\" numbers."}'))
    events = await drain(provider(loopback), request())
    done = events[-1]
    assert done.message.text() == 'It adds "two" numbers.'
    assert deltas(events) == 'It adds "two" numbers.'
    assert done.stop_reason is StopReason.END_TURN
    assert done.message.tool_uses() == []


@pytest.mark.parametrize(
    ("mode", "asked", "sent"),
    [
        ("auto", None, False),  # a model with no profile opinion (not small)
        ("auto", True, True),
        ("auto", False, False),
        ("always", None, True),
        ("always", False, False),  # [models."p/m"] constrained_tools = false wins
        ("never", True, False),
    ],
)
async def test_who_gets_the_constraint(loopback, mode, asked, sent):
    llamacpp(loopback).add(content_reply('{"answer": "ok"}'))
    events = await drain(provider(loopback, constrained_tools=mode), request(asked))
    [body] = chats(loopback)
    assert ("response_format" in body) is sent
    assert (NOTE in body["messages"][0]["content"]) is sent
    assert events[-1].message.text() == ("ok" if sent else '{"answer": "ok"}')


async def test_no_tools_no_constraint(loopback):
    llamacpp(loopback).add(content_reply('{"answer": "ok"}'))
    await drain(provider(loopback), request(tools=[]))
    assert "response_format" not in chats(loopback)[0]
    assert loopback.requests[0].path.endswith("/chat/completions"), "no probe either"


async def test_never_to_a_hosted_vendor_even_when_it_claims_llamacpp(loopback, monkeypatch):
    monkeypatch.setenv("GROQ_API_KEY", "gsk-test")
    llamacpp(loopback).add(content_reply("hi"))
    p = OpenAICompatProvider(endpoint("groq", f"{loopback.url}/v1", "gsk-test", name="groq"))
    p.constrain_mode = "always"
    await drain(p, request(True))
    assert "response_format" not in chats(loopback)[0]
    assert [r.path for r in loopback.requests] == ["/v1/chat/completions"], "not even probed"


async def test_a_remote_custom_endpoint_is_not_constrained_by_default():
    p = OpenAICompatProvider(endpoint("openai-compatible", "https://llm.example.invalid/v1", "k"))
    assert await p._constrain(request(True)) is False  # decided before any request


async def test_a_server_that_is_not_llamacpp_or_vllm_is_not_constrained(loopback):
    loopback.route("/props", Reply(status=404, body="nope", content_type="text/plain"))
    loopback.route("/api/v0/models/" + MODEL, Reply(status=404, body="", content_type="text/plain"))
    loopback.add(Reply(body=json.dumps({"data": []}), content_type="application/json"))
    loopback.add(content_reply('{"answer": "ok"}'))
    await drain(provider(loopback, name="my-server"), request(True))
    assert "response_format" not in chats(loopback)[0]


async def test_vllm_found_by_the_probe_is_constrained(loopback):
    models = {"data": [{"id": MODEL, "max_model_len": 32768}]}
    loopback.route("/v1/models", Reply(body=json.dumps(models), content_type="application/json"))
    loopback.add(content_reply('{"name": "bash", "arguments": {"command": "ls"}}'))
    events = await drain(provider(loopback, name="vllm"), request(True))
    assert "response_format" in chats(loopback)[0]
    assert events[-1].message.tool_uses()[0].input_dict() == {"command": "ls"}


async def test_hostile_server_claims_llamacpp_but_refuses_the_field(loopback):
    refusal = Reply(
        status=400,
        body=json.dumps({"error": {"code": 400, "message": "Unrecognized response_format"}}),
        content_type="application/json",
    )
    ok = content_reply("plain text")
    llamacpp(loopback).add(refusal, ok, content_reply("again"))
    p = provider(loopback)
    first = await drain(p, request())
    notices = [e.text for e in first if e.type is EventType.NOTICE]
    assert len(notices) == 1 and "without the constraint" in notices[0]
    assert "Unrecognized response_format" in notices[0]
    assert first[-1].message.text() == "plain text"
    second = await drain(p, request())
    assert [e for e in second if e.type is EventType.NOTICE] == [], "one notice, not one a call"
    bodies = chats(loopback)
    assert ["response_format" in b for b in bodies] == [True, False, False]


async def test_hostile_server_that_refuses_everything_gets_two_requests_not_a_storm(loopback):
    always = Reply(status=400, body='{"error": "no"}', content_type="application/json")
    llamacpp(loopback).route("/v1/chat/completions", always)
    p = provider(loopback)
    with pytest.raises(APIError):
        await drain(p, request())
    assert len(chats(loopback)) == 2
    with pytest.raises(APIError):
        await drain(p, request())
    assert len(chats(loopback)) == 3


async def test_an_overflow_is_not_taken_for_a_refusal(loopback):
    body = {"error": {"code": 400, "message": "the request exceeds the available context size"}}
    overflow = Reply(status=400, body=json.dumps(body), content_type="application/json")
    llamacpp(loopback).add(overflow)
    p = provider(loopback)
    with pytest.raises(APIError):
        await drain(p, request())
    assert len(chats(loopback)) == 1
    assert p._constraint_refused is False


def test_the_option_is_checked():
    ep = endpoint("llamacpp", "http://127.0.0.1:9/v1", None, name="llamacpp")
    with pytest.raises(ConfigError, match="constrained_tools must be one of auto, always, never"):
        OpenAICompatProvider(ep, constrained_tools="yes")


# -- reading a constrained reply --------------------------------------------------------------

NAMES = ["read_file", "bash"]


@pytest.mark.parametrize(
    ("text", "answer", "call"),
    [
        ('{"answer": "done"}', "done", None),
        ('{"name": "bash", "arguments": {"command": "ls"}}', "", ("bash", {"command": "ls"})),
        # llama.cpp's generic tool format
        ('{"tool_call": {"name": "bash", "arguments": {"command": "ls"}}}', "", ("bash", None)),
        ('{"response": "fine"}', "fine", None),
        # cut off at the reply limit: repaired, not lost
        ('{"answer": "half a sent', "half a sent", None),
        # a server that ignored the field: the ordinary recovery still runs
        (
            '<tool_call>{"name": "read_file", "arguments": {"path": "x"}}</tool_call>',
            "",
            ("read_file", None),
        ),
        # a function that is not a tool stays text
        ('{"name": "rm_rf", "arguments": {}}', '{"name": "rm_rf", "arguments": {}}', None),
        ("just words", "just words", None),
    ],
)
def test_read_reply(text, answer, call):
    got, calls = read_reply(text, NAMES)
    assert got == answer
    if call is None:
        assert calls == []
    else:
        assert calls[0].name == call[0]
        assert call[1] is None or calls[0].input_dict() == call[1]
