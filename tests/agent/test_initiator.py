"""Who asked for a model call (``Request.initiator``): a plan that bills by it (Copilot's
X-Initiator) must see the user's own prompts as the user's, and a subagent's or a
compaction's calls as the agent's (issue 27 item 4)."""

from __future__ import annotations

from larik.agent.compaction import summary_request
from larik.llm.types import Message

from .conftest import run, script


async def test_the_main_agent_leaves_it_to_the_messages_and_a_subagent_says_agent(make_agent):
    provider = script({"text": "main"}, {"text": "sub"})
    agent = await make_agent(provider)
    await run(agent, "hi")
    sub = agent.spawn("explore")
    await run(sub, "look")
    assert [r.initiator for r in provider.requests] == ["", "agent"]


def test_a_compactions_call_is_the_agents():
    assert summary_request("m", [Message.user("hi")], 100_000).initiator == "agent"
