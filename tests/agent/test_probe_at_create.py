"""The loaded context window is asked for when the agent is created, not at the first reply."""

from __future__ import annotations

import asyncio

import pytest

from larik.agent import agent as agent_module
from tests.patience import WAIT

from .conftest import E, of, run, script


@pytest.fixture(autouse=True)
def _probe_answered_in_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """A probe at create gets ``CREATE_PROBE_TIMEOUT`` (2 s), then is asked again at the first
    turn: these tests' answering servers get the suite's ceiling (a loaded machine), and the
    test of a server that does not answer sets a short one."""
    monkeypatch.setattr(agent_module, "CREATE_PROBE_TIMEOUT", WAIT)


class Local:
    """A scripted model behind a local server that says what it loaded."""

    name = "scripted"

    def __init__(self, *turns, window: int = 4096, hang_first: bool = False):
        self.inner = script(*turns)
        self.window = window
        self.hang_first = hang_first
        self.probes = 0

    def stream(self, request):
        return self.inner.stream(request)

    async def context_window(self, model):
        self.probes += 1
        if self.hang_first and self.probes == 1:
            await asyncio.Event().wait()  # a server that never answers
        return self.window

    async def supports_tools(self, model):
        return True


async def test_the_loaded_window_is_known_right_after_create(make_agent):
    p = Local({"text": "hi"})
    agent = await make_agent(p)
    assert agent.context_window == 4096
    await run(agent)
    assert p.probes == 1  # the first turn does not ask again


async def test_a_resumed_session_shows_its_context_use_before_the_first_reply(make_agent):
    first = await make_agent(Local({"text": "x" * 4000}))
    await run(first, "a long answer please")
    await first.close()  # a session is written by one agent at a time
    resumed = await make_agent(Local(), resume="latest")
    assert resumed.context_window == 4096
    assert resumed.context_tokens * 100 // resumed.context_window >= 20  # ~1,000 of 4,096


async def test_a_local_server_that_does_not_answer_does_not_hold_up_create(make_agent, monkeypatch):
    monkeypatch.setattr(agent_module, "CREATE_PROBE_TIMEOUT", 0.01)
    p = Local({"text": "hi"}, hang_first=True)
    agent = await asyncio.wait_for(make_agent(p), WAIT)
    assert agent.context_window != 4096  # the catalog's, for now
    events = await run(agent)
    assert not of(events, E.ERROR)
    assert agent.context_window == 4096 and p.probes == 2  # asked again before the request


async def test_what_the_probe_at_create_warns_about_is_shown_in_the_first_turn(make_agent):
    from larik.config import Config, ModelOverride

    config = Config(models={"scripted/m": ModelOverride(context_window=32_768)})
    agent = await make_agent(Local({"text": "hi"}), config=config)
    events = await run(agent)
    warn = [n.text for n in of(events, E.NOTICE) if "4,096-token" in n.text]
    assert len(warn) == 1 and "32,768" in warn[0]
