"""Interrupts: cancelling the turn at any point leaves a conversation every provider accepts."""

from __future__ import annotations

import asyncio

import pytest

from larik.agent.events import Approval
from larik.agent.transcript import load_transcript
from larik.llm.types import StopReason
from tests.patience import WAIT

from ..procs import all_gone
from .conftest import E, of, run, script, valid_conversation


async def interrupt_when(agent, prompt, condition, ready=None):
    """Run a turn in a task and cancel it once ``condition(event)`` is seen (and ``ready()``)."""
    seen = []
    hit = asyncio.Event()

    async def consume():
        async for ev in agent.run_turn(prompt):
            seen.append(ev)
            if condition(ev):
                hit.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(hit.wait(), WAIT)
    if ready is not None:
        await ready()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return seen


async def test_interrupt_mid_stream_keeps_the_partial_text_marked_interrupted(make_agent):
    p = script({"text": "a long answer that streams slowly " * 4, "delay": 0.01}, {"text": "sure"})
    agent = await make_agent(p)
    await interrupt_when(agent, "explain", lambda ev: ev.type is E.TEXT_DELTA)
    last = agent.messages[-1]
    assert last.role == "assistant" and last.interrupted
    assert last.text() and "a long answer".startswith(last.text()[:13])
    assert load_transcript(agent.transcript_path).messages == agent.messages
    # and the conversation goes on
    events = await run(agent, "go on")
    assert of(events, E.TURN_END)[0].text == "sure"
    sent = p.requests[1].messages
    assert [m.role for m in sent] == ["user", "assistant", "user"]
    assert sent[1].text() == last.text()


async def test_interrupt_before_any_text_leaves_only_the_prompt(make_agent):
    p = script({"text": "never seen", "delay": 0.2}, {"text": "ok"})
    agent = await make_agent(p)
    await interrupt_when(agent, "first", lambda ev: ev.type is E.MESSAGE)
    assert [m.role for m in agent.messages] == ["user"]
    await run(agent, "second")
    sent = p.requests[1].messages
    assert len(sent) == 1 and [b.text for b in sent[0].blocks] == ["first", "second"]


async def test_interrupt_mid_tool_answers_every_call_and_kills_the_command(
    make_agent, project, mark
):
    p = script(
        {
            "tool_calls": [
                {"name": "bash", "input": {"command": "echo quick"}},
                {
                    "name": "bash",
                    "input": {"command": "sleep 30 & echo $! > child.pid; echo started; wait"},
                },
            ]
        },
        {"text": "understood"},
    )
    agent = await make_agent(p)
    pid_file = project / "child.pid"

    async def running():
        for _ in range(500):
            if pid_file.exists() and pid_file.read_text().strip():
                return
            await asyncio.sleep(0.01)

    await interrupt_when(
        agent,
        "run things",
        lambda ev: ev.type is E.TOOL_START and "sleep" in ev.tool_input.get("command", ""),
        ready=running,
    )
    results = agent.messages[-1]
    assert results.role == "user" and results.interrupted
    first, second = results.blocks
    assert "quick" in first.content and not first.is_error
    assert second.is_error and "interrupted" in second.content
    valid_conversation(agent.messages)
    assert load_transcript(agent.transcript_path).messages == agent.messages
    assert await all_gone(mark)  # sleep 30 and everything around it (its pid is the sandbox's)
    events = await run(agent, "never mind")
    assert of(events, E.TURN_END)[0].stop_reason is StopReason.END_TURN
    sent = p.requests[1].messages
    assert [b.type for b in sent[-1].blocks] == ["tool_result", "tool_result", "text"]


async def test_interrupt_while_waiting_for_approval_answers_the_call(make_agent):
    waiting = asyncio.Event()

    async def slow_approver(req):
        waiting.set()
        await asyncio.sleep(10 * WAIT)  # answered only by the interrupt
        return Approval(allow=True)

    p = script({"tool_calls": [{"name": "bash", "input": {"command": "ls"}}]})
    agent = await make_agent(p, permission_mode="ask", approver=slow_approver)
    task = asyncio.create_task(run(agent))
    await asyncio.wait_for(waiting.wait(), WAIT)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    valid_conversation(agent.messages)
    assert agent.messages[-1].blocks[0].is_error


async def test_closing_the_agent_mid_turn_leaves_the_transcript_valid(make_agent):
    p = script({"tool_calls": [{"name": "bash", "input": {"command": "sleep 30"}}]})
    agent = await make_agent(p)
    gen = agent.run_turn("go")
    async for ev in gen:
        if ev.type is E.TOOL_START:
            break
    await agent.close()
    loaded = load_transcript(agent.transcript_path)
    valid_conversation(loaded.messages)
    assert loaded.messages[-1].interrupted
