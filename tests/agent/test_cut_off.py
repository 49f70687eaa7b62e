"""A reply cut off at the output limit: none of its tool calls runs, for every model (issue 24
item 1). The model is told why and how to split the change; the transcript keeps the cut reply
and stays valid (every call answered)."""

from __future__ import annotations

import json

from larik.agent.transcript import load_transcript
from larik.llm.providers.openai_compat import OpenAICompatProvider
from larik.llm.types import StopReason
from tests.llm.helpers import endpoint
from tests.llm.providers.kits.openai_compat import chunk, reply, sse
from tests.loopback import Reply

from .conftest import E, Roles, of, resolved, run, script, valid_conversation

WHOLE = "def add(a, b):\\n    return a + b\\n"


async def test_a_cut_off_write_is_not_run_and_the_file_is_untouched(make_agent, project):
    before = (project / "calc.py").read_text()
    cut = '{"path": "calc.py", "content": "     1\\tdef add(a, b):\\n1. 2. 3. 4. 5. 6.'
    # arguments that happen to parse are not trusted either: the reply was cut
    parses = {"path": "new.py", "content": "x = 1\n"}
    p = script(
        {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]},
        {
            "tool_calls": [
                {"name": "write_file", "input": parses},
                {"name": "write_file", "input": cut},
            ],
            "stop_reason": "max_tokens",
        },
        {"text": "I will make a smaller edit"},
    )
    agent = await make_agent(p)
    events = await run(agent)
    assert (project / "calc.py").read_text() == before
    assert not (project / "new.py").exists()
    results = agent.messages[4].blocks
    assert [r.is_error for r in results] == [True, True]
    assert all("not run: your reply was cut off" in r.content for r in results)
    assert all("edit_file" in r.content for r in results)  # how to split the change
    ends = [e for e in of(events, E.TOOL_END)][1:]
    assert [e.data.get("not_run") for e in ends] == [True, True]
    # the model saw the results and went on; the cut reply is kept in the conversation
    assert len(p.requests) == 3
    cut_reply = agent.messages[3]
    assert [b.name for b in cut_reply.tool_uses()] == ["write_file", "write_file"]
    valid_conversation(agent.messages)
    valid_conversation(load_transcript(agent.transcript_path).messages)
    assert of(events, E.TURN_END)[0].stop_reason is StopReason.END_TURN


async def test_a_cut_off_edit_from_a_large_model_is_not_run_either(make_agent, project):
    p = script(
        {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]},
        {
            "tool_calls": [
                {
                    "name": "edit_file",
                    "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
                }
            ],
            "stop_reason": "max_tokens",
        },
        {"text": "ok"},
    )
    p.model_id = "claude-sonnet-4-5"
    agent = await make_agent(p, resolver=lambda spec: resolved(p, model=p.model_id))
    await run(agent)
    assert "a - b" in (project / "calc.py").read_text()
    assert agent.messages[4].blocks[0].is_error


async def test_a_server_stopping_at_length_mid_arguments_runs_nothing(
    make_agent, project, loopback
):
    """A real OpenAI-compatible stream: ``finish_reason: "length"`` in the middle of a
    write_file's arguments (what llama.cpp sends at ``max_tokens``)."""
    start = {"index": 0, "id": "call_1", "type": "function"}
    start["function"] = {"name": "write_file", "arguments": '{"path": "calc.py", '}
    more = {"index": 0, "function": {"arguments": '"content": "' + WHOLE[:20]}}
    cut = sse(
        [
            chunk({"role": "assistant", "tool_calls": [start]}),
            chunk({"tool_calls": [more]}),
            chunk(finish="length"),
        ]
    )
    read = {"index": 0, "id": "call_0", "type": "function"}
    read["function"] = {"name": "read_file", "arguments": '{"path": "calc.py"}'}
    for probe in ("/props", "/v1/models", "/api/v0/models/m"):  # a server that says nothing
        loopback.route(probe, Reply(status=404, body="{}", content_type="application/json"))
    loopback.add(
        reply([chunk({"role": "assistant", "tool_calls": [read]}), chunk(finish="tool_calls")]),
        Reply(body=cut),
        reply(
            [chunk({"role": "assistant", "content": "smaller steps then"}), chunk(finish="stop")]
        ),
    )
    before = (project / "calc.py").read_text()
    provider = OpenAICompatProvider(endpoint("openai-compatible", f"{loopback.url}/v1"))
    agent = await make_agent(provider, resolver=Roles(provider))
    events = await run(agent)
    assert (project / "calc.py").read_text() == before
    notices = [n.text for n in of(events, E.NOTICE)]
    assert any("cut off at the model's output limit" in n for n in notices)
    answered = agent.messages[4].blocks[0]
    assert answered.is_error and "not run: your reply was cut off" in answered.content
    valid_conversation(agent.messages)
    chats = [r for r in loopback.requests if r.path.endswith("/chat/completions")]
    assert len(chats) == 3
    sent = chats[2].json()["messages"]  # the model is told, with the cut call kept
    tool_msgs = [m for m in sent if m["role"] == "tool"]
    assert "not run: your reply was cut off" in tool_msgs[-1]["content"]
    assert json.loads(json.dumps(sent))  # a body any server takes
    assert of(events, E.TURN_END)[0].text == "smaller steps then"
