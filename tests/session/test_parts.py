"""Each part of a session alone (larik/session/: conversation, store, servers, settings, the
port): built without a Session, on a small stand-in agent where one is needed."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from larik.agent.events import AgentEvent, AgentEventType
from larik.agent.jobs import JobTable
from larik.agent.usage import Accounting
from larik.llm.errors import LarikError
from larik.llm.types import Usage
from larik.session import SessionEvent, SessionEventType
from larik.session.conversation import Conversation, SessionBusy
from larik.session.port import AgentPort, AgentSlot, SessionStatus, status_of
from larik.session.servers import Servers
from larik.session.settings import Settings
from larik.session.store import SessionStore

from ..tui.fake_agent import FakeAgent

E, S = AgentEventType, SessionEventType


def _agent(tmp_path: Path, session: str = "s1") -> FakeAgent:
    agent = FakeAgent(SimpleNamespace(), _never, "scripted/model-a", session)  # type: ignore[arg-type]
    agent.root = tmp_path
    return agent


async def _never(request: Any) -> Any:
    raise AssertionError("nothing asks")


def _slot(agent: Any = None) -> AgentSlot:
    slot = AgentSlot()
    slot.current = agent
    return slot


# -- the port -----------------------------------------------------------------------------------
def test_the_tests_fake_agent_is_what_the_port_asks_for(tmp_path):
    """Every member AgentPort names is there on the fake (a test's stand-in implements it)."""
    agent = _agent(tmp_path)
    members = {n for n in dir(AgentPort) if not n.startswith("_") and n not in dir(object)} | set(
        AgentPort.__annotations__
    )
    assert members >= {"run_turn", "usage", "checkpoints", "jobs", "budget_check"}
    assert [m for m in sorted(members) if not hasattr(agent, m)] == []


def test_the_status_is_a_frozen_copy_of_what_the_agent_had(tmp_path):
    agent = _agent(tmp_path)
    agent.usage.add("model-a", "main", Usage(input=10, output=5), 0.25, "scripted")
    agent.effort, agent.permission_mode = "high", "plan"
    status = status_of(agent, busy=True)
    agent.usage.add("model-a", "main", Usage(input=1, output=1), 1.0, "scripted")
    agent.effort = "low"
    assert (status.spec, status.effort, status.mode, status.busy) == (
        "scripted/model-a",
        "high",
        "plan",
        True,
    )
    assert status.cost == 0.25 and status.tokens == 15  # taken when asked: it does not move
    with pytest.raises(AttributeError):
        status.effort = "max"  # type: ignore[misc]
    assert status_of(None) == SessionStatus() and not SessionStatus().ready


# -- the conversation ---------------------------------------------------------------------------
async def _events(*evs: AgentEvent):
    for ev in evs:
        await asyncio.sleep(0)
        yield ev


async def test_a_conversation_runs_one_turn_at_a_time_and_publishes_it_in_order():
    started, replies = [], []
    c = Conversation(on_turn_start=lambda: started.append(1), on_reply=lambda: replies.append(1))
    stream = c.events()
    turn = c.turn(lambda: _events(AgentEvent(E.USAGE), AgentEvent(E.TURN_END, text="done")))
    result = await turn.run()
    assert (result.text, started, replies, c.busy) == ("done", [1], [1], False)
    kinds = [ev.type for ev in stream.drain()]
    assert kinds == [S.TURN_STARTED, E.USAGE, E.TURN_END, S.TURN_FINISHED]
    with pytest.raises(LarikError):
        await turn.run()  # a turn runs once
    c.busy = True
    with pytest.raises(SessionBusy):
        c.idle("fork")


async def test_a_conversation_cancels_its_turn_without_an_exception_for_the_face():
    c = Conversation()

    async def forever():
        yield AgentEvent(E.TEXT_DELTA, text="a")
        await asyncio.sleep(3600)
        yield AgentEvent(E.TURN_END)

    async def cancel_soon(ev: AgentEvent) -> None:
        assert c.cancel()

    result = await c.turn(forever).run(cancel_soon)
    assert result.cancelled and not c.busy and not c.cancel()


async def test_quiet_streams_get_only_the_sessions_own_events_and_end_when_closed():
    c = Conversation()
    quiet = c.events(agent_events=False)
    c.publish(AgentEvent(E.TEXT_DELTA, text="x"))
    c.notice("hello", "warning")
    c.end_streams()
    got = [ev async for ev in quiet]
    assert got == [SessionEvent(S.NOTICE, text="hello", level="warning")]


# -- the settings -------------------------------------------------------------------------------
async def test_settings_change_the_agent_and_say_what_changed(tmp_path):
    agent, said = _agent(tmp_path), []
    opened: list[str] = []

    async def open_(spec: str) -> None:
        opened.append(spec)

    settings = Settings(
        _slot(agent), open=open_, busy=lambda: False, changed=said.append, say=print
    )
    assert settings.set_mode("plan") == "ask" and agent.permission_mode == "plan"
    assert settings.set_effort("high") == "default" and settings.effort == "high"
    assert settings.set_effort("default") == "high" and agent.effort == ""
    with pytest.raises(LarikError, match="unknown permission mode"):
        settings.set_mode("loose")
    assert await settings.switch_model("scripted/model-b") == "scripted/model-b"
    assert said == ["mode", "effort", "effort", "model"]
    empty = Settings(_slot(), open=open_, busy=lambda: False, changed=said.append, say=print)
    await empty.switch_model("scripted/x")  # no agent yet: one is opened on it
    assert opened == ["scripted/x"] and empty.spec == ""
    with pytest.raises(LarikError, match="no model yet"):
        empty.set_mode("ask")


# -- the store ----------------------------------------------------------------------------------
async def test_the_store_refuses_what_a_session_without_checkpoints_cannot_do(tmp_path):
    agent, replaced = _agent(tmp_path), []

    async def replace(resume: str | None, reason: str) -> None:
        replaced.append((resume, reason))

    store = SessionStore(tmp_path, _slot(agent), Conversation(), replace)
    assert store.checkpoints is None and store.root == tmp_path
    with pytest.raises(LarikError, match="keeps no checkpoints"):
        await store.plan_undo()
    await store.resume("s1")  # its own id: nothing to do
    await store.resume("s2")
    await store.clear()
    assert replaced == [("s2", "resume"), (None, "clear")]
    assert not store.can_fork() and store.messages == [] and store.history().messages == []
    assert store.sessions() == []  # nothing saved in this project


# -- the servers --------------------------------------------------------------------------------
async def test_the_servers_find_the_custom_commands_and_say_each_problem_once(tmp_path):
    folder = tmp_path / ".larik" / "commands"
    folder.mkdir(parents=True)
    (folder / "review.md").write_text("Review $ARGUMENTS\n")
    (folder / "model.md").write_text("a built-in's name\n")
    said: list[tuple[str, str]] = []
    servers = Servers(
        tmp_path,
        lambda: SimpleNamespace(),
        _slot(SimpleNamespace(jobs=JobTable())),
        say=lambda text, level: said.append((text, level)),
        changed=lambda what: None,
    )
    assert servers.prepare() is None and servers.resource_names() == set()  # none configured
    await servers.discover_commands()
    await servers.discover_commands()
    assert [name for name, _, _ in servers.command_rows()] == ["review"]
    assert len(said) == 1 and "built-in" in said[0][0] and said[0][1] == "warning"
    assert (await servers.expand("review", "x")).name == "review"  # type: ignore[union-attr]
    assert await servers.expand("nothing", "") is None
    assert servers.jobs is not None


def test_a_status_before_the_first_reply_counts_nothing(tmp_path):
    status = status_of(_agent(tmp_path))
    assert status.ready and status.cost is None and status.tokens == 0
    assert isinstance(status.usage, Accounting) and status.jobs_running == 0
