"""Esc interrupts a running turn; sessions resume; /clear starts a new one; Ctrl+C quits."""

from __future__ import annotations

import sys
import types
from types import SimpleNamespace

import pytest

from larik.llm.types import Block, Message
from larik.tui.screens.sessions import SessionPickerScreen
from larik.tui.widgets.notice import Notice
from larik.tui.widgets.streaming_markdown import StreamingMarkdown
from larik.tui.widgets.user_turn import UserTurn

from .conftest import ready, screen_text, send, turn_done, wait_for
from .fake_agent import SESSIONS

SLOW = {"text": "word " * 400, "delay": 0.01}


def notices(app) -> list[str]:
    return [n.text for n in app.query(Notice)]


async def test_escape_interrupts_the_running_turn_and_the_next_prompt_works(harness):
    app = harness.app([SLOW, {"text": "after"}])
    harness.hold(lambda i, ev: i == 2)  # two pieces of text, then held until Esc ends it
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "talk a lot")
        await wait_for(pilot, lambda: any(w.text for w in app.query(StreamingMarkdown)))
        await pilot.press("escape")
        await turn_done(pilot)
        assert "interrupted" in notices(app)
        last = harness.agent.messages[-1]
        assert last.interrupted and 0 < len(last.text()) < len(SLOW["text"])
        await send(pilot, "go on")
        await turn_done(pilot)
        assert "after" in screen_text(app)


async def test_resume_shows_the_earlier_conversation(harness):
    SESSIONS["old-1"] = [
        Message.user("what is in main.py?"),
        Message(
            role="assistant",
            blocks=[
                Block.text_block("Let me look."),
                Block.tool_use("t1", "read_file", {"path": "main.py"}),
            ],
            model="model-a",
        ),
        Message(role="user", blocks=[Block.tool_result("t1", "print('x')")]),
        Message(role="assistant", blocks=[Block.text_block("It prints x.")], model="model-a"),
    ]
    app = harness.app([{"text": "yes"}], resume="old-1")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: "It prints x." in screen_text(app))
        shown = screen_text(app)
        assert "what is in main.py?" in shown and "read_file" in shown
        assert app.session_id == "old-1"
        await send(pilot, "sure?")
        await turn_done(pilot)
        assert [m.text() for m in harness.provider.requests[0].messages][-1] == "sure?"
        assert len(harness.provider.requests[0].messages) == 5


async def test_slash_resume_picks_a_session_and_replaces_the_view(harness, monkeypatch):
    SESSIONS["old-2"] = [
        Message.user("earlier question"),
        Message(role="assistant", blocks=[Block.text_block("earlier answer")]),
    ]
    info = SimpleNamespace(
        id="old-2", started="2026-01-01T10:00", messages=2, first_prompt="earlier"
    )
    fake = types.ModuleType("larik.agent.sessions")
    fake.list_sessions = lambda cwd: [info]  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "larik.agent.sessions", fake)
    app = harness.app([{"text": "hello"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session_id == "old-2")
        await wait_for(pilot, lambda: "earlier answer" in screen_text(app))
        assert [u.prompt for u in app.query(UserTurn)] == ["earlier question"]
        assert harness.agents[0].closed


async def test_resume_without_earlier_sessions_says_so_in_one_line(harness, monkeypatch):
    fake = types.ModuleType("larik.agent.sessions")
    fake.list_sessions = lambda cwd: []  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "larik.agent.sessions", fake)
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: "no earlier sessions in this project" in notices(app))
        assert not isinstance(app.screen, SessionPickerScreen)


async def test_resuming_a_session_without_messages_says_so(harness):
    SESSIONS["empty-1"] = []
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/resume empty-1")
        await wait_for(pilot, lambda: app.session_id == "empty-1")
        await wait_for(pilot, lambda: "resumed session empty-1 (no messages yet)" in notices(app))


async def test_a_history_that_cannot_be_drawn_is_one_line_and_the_session_goes_on(harness):
    SESSIONS["old-3"] = [Message.user("q"), Message(role="assistant", blocks=[])]
    app = harness.app([{"text": "still here"}], resume="old-3")

    def broken(messages):
        raise ValueError("a block the view does not know")

    app.chat.conv.show_history = broken
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(
            pilot, lambda: any("could not show the earlier conversation" in n for n in notices(app))
        )
        await send(pilot, "go on")
        await turn_done(pilot)
        assert "still here" in screen_text(app)


async def test_resuming_an_unknown_session_says_so_and_starts_a_new_one(harness):
    app = harness.app([], resume="nope")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert any("could not resume nope" in n for n in notices(app))
        assert harness.factory_calls[-1]["resume"] is None


async def test_slash_clear_starts_a_new_session_and_keeps_effort(harness):
    app = harness.app([{"text": "one"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "first")
        await turn_done(pilot)
        await send(pilot, "/effort high")
        first = app.session_id
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.session_id != first)
        assert not list(app.query(UserTurn))
        assert harness.agent.effort == "high" and harness.agents[0].closed


async def test_ctrl_c_twice_quits_and_closes_the_agent(harness):
    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.is_running
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: not app.is_running)
    assert harness.agent.closed and app.return_code == 0


@pytest.mark.parametrize(
    ("how", "reason"), [("/exit", "prompt_input_exit"), ("SIGTERM", "other"), ("SIGHUP", "other")]
)
async def test_session_end_hooks_hear_why_the_session_ended(harness, how, reason):
    """A terminal closed (SIGHUP) or a kill (SIGTERM) told SessionEnd hooks 'prompt_input_exit',
    as if the user had typed /exit; Claude Code says 'other'."""
    import signal

    app = harness.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        if how == "/exit":
            await send(pilot, "/exit")
        else:
            app.quit_signals._quit(app, getattr(signal, how))
        await wait_for(pilot, lambda: not app.is_running)
    assert harness.agent.close_reason == reason


async def test_resuming_a_session_of_one_message_says_1_message(harness):
    """issue 25 item 16: it said "(1 messages)"."""
    SESSIONS["one-1"] = [Message.user("a lone question")]
    app = harness.app([], resume="one-1")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: any("resumed session" in n for n in notices(app)))
        assert "resumed session one-1 (1 message)" in notices(app)
