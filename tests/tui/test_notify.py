"""Notifications (larik/tui/notify.py): when a turn ends, a permission is asked or a job
finishes and you are not looking; OSC 9 / OSC 777 where the terminal shows them, else BEL."""

from __future__ import annotations

import pytest
from textual import events

from larik.config import Config
from larik.tui.notify import BEL, protocol, sequence

from .conftest import ready, send, turn_done, wait_for
from .test_real_agent import real  # noqa: F401  (fixture)


@pytest.mark.parametrize(
    ("mode", "env", "want"),
    [
        ("auto", {"TERM_PROGRAM": "iTerm.app"}, "osc9"),
        ("auto", {"LC_TERMINAL": "iTerm2", "TERM": "screen"}, "osc9"),
        ("auto", {"KITTY_WINDOW_ID": "1"}, "osc9"),
        ("auto", {"TERM_PROGRAM": "WezTerm"}, "osc777"),
        ("auto", {"TERM_PROGRAM": "ghostty"}, "osc777"),
        ("auto", {"TERM": "foot"}, "osc777"),
        ("auto", {"VTE_VERSION": "7600"}, "osc777"),
        ("auto", {"TERM": "xterm-256color"}, "bell"),  # not known to show them: the bell
        ("osc", {"TERM": "xterm-256color"}, "osc9"),
        ("bell", {"TERM_PROGRAM": "iTerm.app"}, "bell"),
        ("off", {"TERM_PROGRAM": "iTerm.app"}, ""),
    ],
)
def test_the_way_to_notify_follows_the_setting_and_the_terminal(mode, env, want):
    assert protocol(mode, env) == want


def test_the_sequences_and_tmux_passthrough():
    assert sequence("osc9", "Larik", "done", {}) == "\x1b]9;Larik: done\x1b\\"
    assert sequence("osc777", "Lar;ik", "done", {}) == "\x1b]777;notify;Lar,ik;done\x1b\\"
    assert sequence("bell", "Larik", "done", {}) == BEL
    wrapped = sequence("osc9", "Larik", "done", {"TMUX": "/tmp/tmux-0/default,1,0"})
    assert wrapped == "\x1bPtmux;\x1b\x1b]9;Larik: done\x1b\x1b\\\x1b\\"


def test_a_notifications_text_cannot_carry_an_escape_to_the_terminal():
    hostile = "done\x1b]52;c;cm0gLXJmIH4=\x07\nsecond line\x1b\\"
    seq = sequence("osc9", "Larik", hostile, {})
    assert seq.count("\x1b") == 2 and "\x07" not in seq  # only the sequence's own ESCs
    assert "\n" not in seq


def _blur(app) -> None:
    app.post_message(events.AppBlur())


async def test_a_turn_that_ends_while_the_terminal_is_not_focused_notifies_at_once(
    harness, monkeypatch
):
    monkeypatch.setenv("TERM_PROGRAM", "iTerm.app")
    app = harness.app([{"text": "Fixed the bug.\nDetails follow."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        written: list[str] = []
        app.chat.notifier.write = written.append
        await send(pilot, "fix it")
        await turn_done(pilot)
        assert written == []  # focused, and notify_after has not passed
        await send(pilot, "again")  # (no reply left: an error, which notifies too)
        _blur(app)
        await wait_for(pilot, lambda: not app.app_focus)
        await turn_done(pilot)
        await wait_for(pilot, lambda: bool(written))
    assert written[-1].startswith("\x1b]9;Larik · project: the turn ended with an error")


async def test_focused_it_notifies_after_notify_after_seconds_unless_a_key_is_pressed(
    harness, monkeypatch
):
    monkeypatch.setenv("TERM_PROGRAM", "WezTerm")
    config = Config.model_validate({"tui": {"notify_after": 0.3}})
    app = harness.app([{"text": "one"}, {"text": "two"}], config=config)
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        written: list[str] = []
        app.chat.notifier.write = written.append
        await send(pilot, "first")
        await turn_done(pilot)
        await wait_for(pilot, lambda: bool(written))
        assert written == ["\x1b]777;notify;Larik · project;finished: one\x1b\\"]
        config.tui.notify_after = 60.0  # long enough that the key below surely comes first
        await send(pilot, "second")
        await turn_done(pilot)
        await pilot.press("x")  # you are here: the notification waiting is dropped
        assert app.chat.notifier._pending is None
        assert [k for k, _ in app.chat.notifier.sent] == ["idle_prompt"]


async def test_a_permission_question_notifies_and_the_bell_rings_where_osc_is_unknown(
    harness, monkeypatch
):
    from larik.tui.screens.permission import PermissionScreen

    monkeypatch.delenv("TERM_PROGRAM", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    call = {"tool_calls": [{"name": "bash", "input": {"command": "make"}}]}
    app = harness.app([call, {"text": "ok"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        written: list[str] = []
        app.chat.notifier.write = written.append
        await send(pilot, "build")  # (a key gives the app focus back: blur it after)
        _blur(app)
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await wait_for(pilot, lambda: written == [BEL])
        assert app.chat.notifier.sent == [
            ("permission_prompt", "needs your permission to use bash")
        ]


async def test_notify_off_writes_nothing(harness, monkeypatch):
    monkeypatch.setenv("TERM_PROGRAM", "iTerm.app")
    app = harness.app([{"text": "one"}], config=Config.model_validate({"tui": {"notify": "off"}}))
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        written: list[str] = []
        app.chat.notifier.write = written.append
        await send(pilot, "go")
        _blur(app)
        await turn_done(pilot)
        await wait_for(pilot, lambda: bool(app.chat.notifier.sent))
        assert written == []


async def test_a_background_job_that_finishes_while_you_are_away_notifies(real, monkeypatch):  # noqa: F811
    import sys

    monkeypatch.setenv("TERM_PROGRAM", "ghostty")
    app = real.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        written: list[str] = []
        app.chat.notifier.write = written.append
        jobs = real.agents[0].jobs
        await wait_for(pilot, lambda: app.chat.notifier.job_done in jobs.listeners)
        _blur(app)
        await wait_for(pilot, lambda: not app.app_focus)
        jobs.start(f"{sys.executable} -c \"print('built')\"", real.cwd)
        await wait_for(pilot, lambda: bool(written))
        await jobs.close()
    assert "background job 1 finished (exit code 0)" in written[0]
    assert written[0].startswith("\x1b]777;notify;Larik · project;")
