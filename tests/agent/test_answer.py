"""Knowing when to stop (issue 24 item 7): a small model gets ``answer`` first among its tools and
a reply that only calls it ends the turn with its text; the first repeat of a call with the
same result is told "you have it: answer"; a constrained reply's answer branch comes first."""

from __future__ import annotations

import pytest

from larik.agent.transcript import load_transcript
from larik.config import Config, ModelOverride
from larik.llm.providers.constrained import NOTE, response_format
from larik.llm.types import StopReason, ToolSpec
from tests.loopback import Reply

from .conftest import E, of, resolved, run, script, valid_conversation

pytestmark = pytest.mark.usefixtures("small_loop")  # the small profile's loop

SMALL = "qwen2.5-coder-1.5b-instruct"
GREP = {"name": "grep", "input": {"pattern": "def "}}


def small(*turns):
    p = script(*turns)
    return p, (lambda spec: resolved(p, model=SMALL))


async def test_a_small_model_is_offered_answer_first_and_a_large_one_not_at_all(make_agent):
    p, resolver = small({"text": "hi"})
    await run(await make_agent(p, resolver=resolver))
    assert [t.name for t in p.requests[0].tools][0] == "answer"
    assert "call answer with your answer" in p.requests[0].system[0]
    large = script({"text": "hi"})
    await run(await make_agent(large))
    assert "answer" not in [t.name for t in large.requests[0].tools]
    listed = script({"text": "hi"})
    cfg = Config(models={"scripted/m": ModelOverride(tools=["read_file", "answer"])})
    await run(await make_agent(listed, config=cfg))
    assert [t.name for t in listed.requests[0].tools] == ["read_file", "answer"]


async def test_answer_ends_the_turn_with_its_text(make_agent, project):
    answer = {"name": "answer", "input": {"text": "calc.py defines add(a, b)."}}
    p, resolver = small({"tool_calls": [GREP]}, {"tool_calls": [answer]})
    agent = await make_agent(p, resolver=resolver)
    events = await run(agent)
    end = of(events, E.TURN_END)[0]
    assert end.stop_reason is StopReason.END_TURN and end.text == "calc.py defines add(a, b)."
    assert "".join(e.text for e in of(events, E.TEXT_DELTA)) == end.text  # front ends show it
    assert len(p.requests) == 2  # no further model call
    last = agent.messages[-1]  # kept as the answer it is: text, no call left unanswered
    assert last.role == "assistant" and last.text() == end.text and not last.tool_uses()
    valid_conversation(agent.messages)
    assert load_transcript(agent.transcript_path).messages[-1].text() == end.text


async def test_answer_beside_other_calls_lets_them_run_and_says_to_answer_alone(make_agent):
    answer = {"name": "answer", "input": {"text": "guess"}}
    p, resolver = small({"tool_calls": [GREP, answer]}, {"text": "done"})
    agent = await make_agent(p, resolver=resolver)
    await run(agent)
    grep, said = agent.messages[2].blocks
    assert not grep.is_error and said.is_error and "answer alone" in said.content


async def test_the_first_repeat_of_a_call_is_told_you_have_it_answer(make_agent):
    p, resolver = small({"tool_calls": [GREP]}, {"tool_calls": [GREP]}, {"text": "add"})
    agent = await make_agent(p, resolver=resolver)
    events = await run(agent)
    first, again = agent.messages[2].blocks[0], agent.messages[4].blocks[0]
    assert "you have it" not in first.content
    assert "you have it" in again.content and "call answer now" in again.content
    assert of(events, E.TURN_END)[0].text == "add"
    big = script({"tool_calls": [GREP]}, {"tool_calls": [GREP]}, {"text": "add"})
    agent = await make_agent(big)
    await run(agent)
    assert "you have it" not in agent.messages[4].blocks[0].content  # a small profile's


async def test_the_nudge_comes_once_a_call_and_the_stuck_stop_still_comes(make_agent):
    p, resolver = small(*[{"tool_calls": [GREP]}] * 6)
    agent = await make_agent(p, resolver=resolver)
    events = await run(agent)
    results = [b for m in agent.messages for b in m.blocks if b.type == "tool_result"]
    assert len([b for b in results if "you have it" in b.content]) == 1
    end = of(events, E.TURN_END)[0]
    assert end.stop_reason is StopReason.STUCK


def test_the_constrained_reply_names_the_answer_first():
    tool = ToolSpec(name="read_file", description="", input_schema={"type": "object"})
    branches = response_format([tool])["json_schema"]["schema"]["anyOf"]
    assert branches[0]["required"] == ["answer"]
    assert NOTE.index('"answer"') < NOTE.index('"name"')


async def test_a_grammar_held_answer_call_from_a_real_llamacpp_server_ends_the_turn(
    make_agent, loopback
):
    """The 1.5B model under the grammar: its first grep holds the answer; its second reply is
    the answer tool, written as the constrained JSON ``{"name": "answer", ...}``."""
    import json

    from larik.llm.providers.openai_compat import OpenAICompatProvider
    from tests.llm.helpers import endpoint
    from tests.llm.providers.test_constrained import PROPS, content_reply

    loopback.route("/props", Reply(body=json.dumps(PROPS), content_type="application/json"))
    grep = {"name": "grep", "arguments": {"pattern": "def "}}
    done = {"name": "answer", "arguments": {"text": "compute_invoice_total"}}
    loopback.add(content_reply(json.dumps(grep)), content_reply(json.dumps(done)))
    p = OpenAICompatProvider(endpoint("llamacpp", f"{loopback.url}/v1", None, name="llamacpp"))
    agent = await make_agent(p, resolver=lambda spec: resolved(p, model=SMALL))
    events = await run(agent)
    assert of(events, E.TURN_END)[0].text == "compute_invoice_total"
    bodies = [r.json() for r in loopback.requests if r.path.endswith("/chat/completions")]
    assert len(bodies) == 2 and "response_format" in bodies[0]
    assert bodies[0]["tools"][0]["function"]["name"] == "answer"  # first in the list
