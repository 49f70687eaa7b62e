"""The loop: stream, append, run tools, feed results back, stop at the right place."""

from __future__ import annotations

import asyncio

import pytest

from larik.agent.events import AgentEventType, NoticeLevel
from larik.agent.transcript import load_transcript
from larik.config import Config, ModelOverride
from larik.llm.fallback import Candidate, FallbackProvider
from larik.llm.types import Block, Message, StopReason

from .conftest import E, Roles, of, run, script, valid_conversation


async def test_deltas_are_forwarded_and_the_done_message_is_appended(make_agent):
    p = script({"thinking": "hmm, let me think", "text": "hello there, friend"})
    agent = await make_agent(p)
    events = await run(agent, "hi")
    assert "".join(e.text for e in of(events, E.TEXT_DELTA)) == "hello there, friend"
    assert "".join(e.text for e in of(events, E.THINKING_DELTA)) == "hmm, let me think"
    assert [m.role for m in agent.messages] == ["user", "assistant"]
    assert agent.messages[1].text() == "hello there, friend"
    end = of(events, E.TURN_END)
    assert len(end) == 1 and end[0].stop_reason is StopReason.END_TURN
    assert end[0].text == "hello there, friend" and events[-1] is end[0]


async def test_tool_results_go_back_as_one_user_message_then_the_loop_continues(make_agent):
    p = script(
        {
            "tool_calls": [
                {"name": "read_file", "input": {"path": "calc.py"}},
                {"name": "glob", "input": {"pattern": "*.py"}},
            ]
        },
        {"text": "done"},
    )
    agent = await make_agent(p)
    events = await run(agent)
    roles = [m.role for m in agent.messages]
    assert roles == ["user", "assistant", "user", "assistant"]
    results = agent.messages[2].blocks
    assert [b.type for b in results] == ["tool_result", "tool_result"]
    assert [b.id for b in results] == [b.id for b in agent.messages[1].tool_uses()]
    assert "return a - b" in results[0].content and results[1].content == "calc.py"
    # the second request carried the results
    assert p.requests[1].messages[-1].blocks == results
    assert [e.tool_name for e in of(events, E.TOOL_START)] == ["read_file", "glob"]
    assert len(of(events, E.TOOL_END)) == 2
    p.assert_complete()


async def test_every_final_message_is_in_the_transcript_as_it_happens(make_agent):
    p = script({"tool_calls": [{"name": "bash", "input": {"command": "echo hi"}}]}, {"text": "ok"})
    agent = await make_agent(p)
    await run(agent)
    loaded = load_transcript(agent.transcript_path)
    assert loaded.messages == agent.messages
    kinds = [r["kind"] for r in loaded.records]
    assert kinds.count("usage") == 2


async def test_max_turns_stops_the_turn_with_a_warning(make_agent):
    call = {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}
    p = script(call, call, call)
    agent = await make_agent(p, max_turns=2)
    events = await run(agent)
    end = of(events, E.TURN_END)[0]
    assert end.data == {"max_turns": 2} and end.stop_reason is StopReason.MAX_TURNS
    assert len(p.requests) == 2 and p.remaining == 1
    assert any("max-turns" in n.text for n in of(events, E.NOTICE))
    valid_conversation(agent.messages)


async def test_usage_and_cost_are_totalled_per_answering_model_and_role(make_agent):
    cfg = Config(models={"scripted/m": ModelOverride(input_price=1.0, output_price=2.0)})
    p = script(
        {
            "tool_calls": [{"name": "glob", "input": {"pattern": "*"}}],
            "usage": {"input": 1000, "output": 10},
        },
        {"text": "ok", "usage": {"input": 2000, "output": 20}},
    )
    agent = await make_agent(p, config=cfg)
    events = await run(agent)
    usages = of(events, E.USAGE)
    assert [u.usage.input for u in usages] == [1000, 2000]
    assert all(u.model == "m" and u.role == "main" for u in usages)
    assert agent.usage.by_model["m"].input == 3000 and agent.usage.by_model["m"].output == 30
    assert agent.usage.by_role["main"].output == 30
    assert agent.usage.total_cost == agent.usage.cost_by_model["m"]
    assert abs(agent.usage.total_cost - (3000 * 1.0 + 30 * 2.0) / 1e6) < 1e-12


async def test_unknown_prices_give_no_cost(make_agent):
    agent = await make_agent(script({"text": "ok"}), resolver=Roles_unpriced())
    await run(agent)
    assert agent.usage.total_cost is None and agent.usage.cost_by_model == {"mystery-model-x": None}


def Roles_unpriced():
    r = Roles(script({"text": "ok"}))
    r.by_name[""] = r.main
    r.main.model_id = "mystery-model-x"
    r.main.name = "openrouter"
    return r


async def test_a_fallback_switch_reaches_the_front_end_as_a_notice(make_agent):
    first = script({"error": {"status": 429, "message": "slow down"}})
    first.name = "alpha"
    second = script({"text": "answered by beta"})
    second.name = "beta"
    fb = FallbackProvider([Candidate(first, "m"), Candidate(second, "m2")])
    agent = await make_agent(fb)
    events = await run(agent)
    notices = of(events, E.NOTICE)
    assert any("switched to beta/m2" in n.text for n in notices)
    assert notices[0].level is NoticeLevel.WARNING
    assert of(events, E.USAGE)[0].model == "m2" and "m2" in agent.usage.by_model
    records = load_transcript(agent.transcript_path).records
    assert any(r["kind"] == "notice" and "beta/m2" in r["text"] for r in records)


async def test_a_provider_error_mid_turn_ends_it_with_one_line_and_keeps_what_was_appended(
    make_agent,
):
    p = script(
        {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]},
        {"error": {"status": 500, "message": "upstream exploded"}},
        {"text": "recovered"},
    )
    agent = await make_agent(p)
    events = await run(agent)
    err = of(events, E.ERROR)
    assert len(err) == 1 and "upstream exploded" in err[0].text and "\n" not in err[0].text
    assert not of(events, E.TURN_END)
    assert [m.role for m in agent.messages] == ["user", "assistant", "user"]
    assert load_transcript(agent.transcript_path).messages == agent.messages
    events = await run(agent, "try again")
    assert of(events, E.TURN_END)[0].text == "recovered"


async def test_an_error_after_partial_text_keeps_the_text_marked_interrupted(make_agent):
    class Breaks:
        name = "scripted"

        async def stream(self, request):
            from larik.llm.errors import APIError
            from larik.llm.types import StreamEvent

            yield StreamEvent.text_delta("half a rep")
            raise APIError(0, "connection dropped")

    agent = await make_agent(Breaks())
    events = await run(agent)
    assert "connection dropped" in of(events, E.ERROR)[0].text
    last = agent.messages[-1]
    assert last.role == "assistant" and last.text() == "half a rep" and last.interrupted


async def test_a_reply_cut_at_the_output_limit_ends_the_turn_with_a_warning(make_agent):
    agent = await make_agent(script({"text": "the answer is", "stop_reason": "max_tokens"}))
    events = await run(agent)
    assert of(events, E.TURN_END)[0].stop_reason is StopReason.MAX_TOKENS
    assert any("output limit" in n.text for n in of(events, E.NOTICE))


async def test_a_cut_reply_runs_none_of_its_calls_and_the_turn_goes_on(make_agent):
    p = script(
        {
            "tool_calls": [
                {"name": "glob", "input": {"pattern": "*.py"}},
                {"name": "write_file", "input": '{"path": "a.py", "cont'},
            ],
            "stop_reason": "max_tokens",
        },
        {"text": "retried in smaller steps"},
    )
    agent = await make_agent(p)
    events = await run(agent)
    first, cut = agent.messages[2].blocks
    assert first.is_error and cut.is_error and "not run: your reply was cut off" in cut.content
    assert of(events, E.TURN_END)[0].text == "retried in smaller steps"
    assert any("tool calls were not run" in n.text for n in of(events, E.NOTICE))


async def test_pause_turn_continues_without_a_new_user_message(make_agent):
    p = script({"text": "working", "stop_reason": "pause_turn"}, {"text": "finished"})
    agent = await make_agent(p)
    events = await run(agent)
    assert of(events, E.TURN_END)[0].text == "finished" and len(p.requests) == 2


async def test_the_system_prompt_is_a_stable_prefix_then_session_context(make_agent, project):
    p = script(
        {"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}, {"text": "a"}, {"text": "b"}
    )
    agent = await make_agent(p)
    await run(agent)
    await run(agent, "again")
    systems = [r.system for r in p.requests]
    assert all(len(s) == 2 for s in systems)
    assert systems[0] == systems[1] == systems[2]
    prefix, context = systems[0]
    assert "read_file" in prefix and str(project) not in prefix
    assert str(project) in context
    assert [t.name for t in p.requests[0].tools] == [
        "read_file",
        "write_file",
        "edit_file",
        "glob",
        "grep",
        "bash",
        "job_output",
        "job_stop",
        "task",
        "web_fetch",
    ]


async def test_effort_is_sent_and_can_change_between_turns(make_agent):
    p = script({"text": "a"}, {"text": "b"})
    agent = await make_agent(p, effort="high")
    await run(agent)
    agent.effort = "low"
    await run(agent)
    assert [r.effort for r in p.requests] == ["high", "low"]


async def test_an_unknown_effort_is_refused(make_agent):
    from larik.llm.errors import ConfigError

    agent = await make_agent(script())
    with pytest.raises(ConfigError, match="unknown effort"):
        agent.effort = "extreme"
    assert agent.effort == ""


async def test_set_model_sends_the_next_turn_to_it_without_foreign_thinking(make_agent):
    a = script({"thinking": "secret reasoning", "text": "from a"})
    b = script({"text": "from b"})
    b.name = "other"
    roles = Roles(a, **{"other/m2": b})
    b.model_id = "m2"
    agent = await make_agent(a, resolver=roles)
    await run(agent)
    agent.set_model("other/m2")
    assert agent.model == "m2" and agent.provider_name == "other"
    await run(agent, "next")
    sent = b.requests[0].messages
    assert all(blk.type != "thinking" for m in sent for blk in m.blocks)
    assert sent[1].text() == "from a"
    recs = load_transcript(agent.transcript_path).records
    switch = [r for r in recs if r["kind"] == "model_switch"]
    assert switch and switch[0]["to"] == "other/m2" and switch[0]["from"] == "scripted/m"


async def test_an_empty_reply_is_not_stored_and_adjacent_user_messages_are_merged(make_agent):
    p = script({"text": ""}, {"text": "ok"})
    agent = await make_agent(p)
    await run(agent, "first")
    await run(agent, "second")
    assert [m.role for m in agent.messages] == ["user", "user", "assistant"]
    sent = p.requests[1].messages
    assert len(sent) == 1 and [b.text for b in sent[0].blocks] == ["first", "second"]


async def test_a_prompt_can_carry_image_blocks(make_agent):
    p = script({"text": "a cat"})
    agent = await make_agent(p)
    blocks = [Block.text_block("what is this"), Block.image("image/png", "AAAA")]
    await run_blocks(agent, blocks)
    assert p.requests[0].messages[0].blocks == blocks


async def run_blocks(agent, blocks):
    return [ev async for ev in agent.run_turn(blocks)]


async def test_a_second_turn_while_one_is_running_is_refused(make_agent):
    agent = await make_agent(script({"text": "slow reply here", "delay": 0.05}))
    first = agent.run_turn("one")
    assert (await first.__anext__()).type is E.MESSAGE
    task = asyncio.ensure_future(first.__anext__())  # now streaming
    await asyncio.sleep(0.01)
    with pytest.raises(RuntimeError, match="already running"):
        await agent.run_turn("two").__anext__()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_a_new_turn_closes_an_abandoned_one_as_an_interrupt(make_agent):
    p = script({"tool_calls": [{"name": "glob", "input": {"pattern": "*"}}]}, {"text": "ok"})
    agent = await make_agent(p)
    first = agent.run_turn("one")
    async for ev in first:
        if ev.type is E.TOOL_START:
            break  # the consumer walks away mid-tool without closing the iterator
    events = await run(agent, "two")
    assert of(events, E.TURN_END)[0].text == "ok"
    valid_conversation(agent.messages)


async def test_messages_are_the_neutral_model(make_agent):
    agent = await make_agent(script({"text": "x"}))
    await run(agent)
    assert all(isinstance(m, Message) for m in agent.messages)
    assert AgentEventType.MESSAGE in {e.type for e in await run_again(agent)}


async def run_again(agent):
    agent.slot.resolved.provider.turns.append(agent.slot.resolved.provider.turns[0])
    return await run(agent, "again")
