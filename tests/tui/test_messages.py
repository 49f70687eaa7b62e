"""The TUI talks in messages: handlers, helpers and widgets post them (larik/tui/messages.py),
the chat screen handles them, and a handler needs no screen at all — only a ``UI``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from textual.message import Message

from larik.agent.events import PermissionRequest
from larik.session import Session, SessionOptions
from larik.tui import messages, slash
from larik.tui.app import LarikApp
from larik.tui.messages import Approve, Find, Quit, ToPrompt
from larik.tui.screens.chat import ChatScreen
from larik.tui.screens.permission import PermissionScreen
from larik.tui.ui import UI
from larik.tui.widgets.notice import Notice
from larik.tui.widgets.user_turn import UserTurn

from .conftest import SIZE, ready, send, wait_for


def notices(app: Any) -> list[str]:
    return [n.text for n in app.query(Notice)]


def test_every_message_has_its_handler_on_the_chat_screen_or_the_app():
    names = [n for n in messages.__all__ if isinstance(getattr(messages, n), type)]
    assert len(names) >= 10
    for name in names:
        cls = getattr(messages, name)
        assert issubclass(cls, Message)
        owner = LarikApp if cls is Quit else ChatScreen
        assert callable(getattr(owner, cls.handler_name, None)), (name, owner.__name__)


def test_the_ui_a_handler_gets_is_small():
    """What a handler reads, its guards, say, a worker and ``post``: the rest is a message."""
    members = [n for n in vars(UI) if not n.startswith("_")]
    assert "post" in members and len(members) <= 10, members


class Recorder:
    """A UI with no screen behind it: what a handler posts, in order."""

    def __init__(self, cwd: Path) -> None:
        self.cwd, self.config, self.posted = cwd, None, list[Message]()
        self.said: list[str] = []

    models = prefs = property(lambda self: None)

    def say(self, text: str, level: str = "info", *, as_markdown: bool = False) -> None:
        self.said.append(text)

    def need_agent(self) -> bool:
        return True

    def idle(self, what: str) -> bool:
        return True

    def run(self, work: Any, group: str) -> None:
        work.close()

    def post(self, message: Message) -> None:
        self.posted.append(message)


async def test_a_handler_asks_for_the_search_bar_and_for_leaving_by_posting(tmp_path):
    ui, session = Recorder(tmp_path), Session(tmp_path, None, SessionOptions())
    recorder: UI = ui  # the protocol is all a handler needs
    await slash.run(session, recorder, "find", "needle")
    await slash.run(session, recorder, "exit", "")
    assert [type(m) for m in ui.posted] == [Find, Quit]
    assert ui.posted[0].query == "needle" and not ui.posted[1].now  # type: ignore[attr-defined]


async def test_clear_posts_the_redraw_then_its_line_and_the_screen_keeps_their_order(harness):
    """``/clear`` posts Reopened (the conversation cleared, redrawn) and then its line: drawn
    in the order posted, the line is not cleared away with the old conversation."""
    app = harness.app([{"text": "hi"}])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await send(pilot, "hello")
        await wait_for(pilot, lambda: not app.chat.busy and app.query(UserTurn))
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: "new session session-2" in notices(app))
        assert not app.query(UserTurn) and notices(app)[-1] == "new session session-2"


async def test_approval_is_a_message_with_a_future_the_modal_answers(harness):
    app = harness.app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        request = PermissionRequest("bash", {"command": "ls"}, "ls")
        asked = asyncio.create_task(Approve.asked_of(app.chat, request))
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("y")
        assert (await asked).allow


async def test_an_approval_whose_asker_is_cancelled_takes_its_modal_down(harness):
    app = harness.app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        request = PermissionRequest("bash", {"command": "rm -r x"}, "rm -r x")
        asked = asyncio.create_task(Approve.asked_of(app.chat, request))
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        asked.cancel()  # the turn ended (Esc, leaving)
        await wait_for(pilot, lambda: app.screen is app.chat)
        assert app.chat.activity._paused_at is None  # the activity line goes on


async def test_to_prompt_replaces_the_prompts_text_or_types_into_it(harness):
    app = harness.app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.chat.prompt.load_text("draft")
        app.chat.post_message(ToPrompt("again", replace=True))
        await wait_for(pilot, lambda: app.chat.prompt.text == "again")
        assert app.chat.prompt.cursor_location == (0, 5) and app.chat.prompt.has_focus
        app.chat.post_message(ToPrompt("!"))
        await wait_for(pilot, lambda: app.chat.prompt.text == "again!")


async def test_quit_now_bubbles_past_the_screen_to_the_app(harness):
    app = harness.app([])
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.chat.post_message(Quit(now=True))
        await wait_for(pilot, lambda: not app.is_running)
    assert not harness.agent.closed  # at once: no closing
