"""A sign of life while a turn runs: spinner, what it waits for, elapsed time, how to interrupt
(issue 19 item 4); tool cards' states and durations (item 13)."""

from __future__ import annotations

import re

import pytest

from larik.tui.screens.permission import PermissionScreen

from .conftest import ready, screen_text, send, turn_done, wait_for


def elapsed_shown(app) -> float:
    m = re.search(r"\((\d+\.\d)s · esc to interrupt\)", screen_text(app))
    assert m, screen_text(app)
    return float(m.group(1))


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_a_slow_model_shows_a_spinner_elapsed_time_and_how_to_interrupt(harness, size):
    app = harness.app([{"text": "late"}])
    harness.hold(lambda i, ev: True)  # no word of it until Esc ends it
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await wait_for(pilot, lambda: "esc to interrupt" in screen_text(app))
        assert "waiting for scripted/model-a…" in screen_text(app)
        first = elapsed_shown(app)
        await wait_for(pilot, lambda: elapsed_shown(app) > first)  # the clock moves
        await pilot.press("escape")
        await turn_done(pilot)
        assert "esc to interrupt" not in screen_text(app)


async def test_the_clock_stops_while_the_user_is_asked(harness):
    call = {"name": "bash", "input": {"command": "ls"}, "id": "c1"}
    app = harness.app([{"tool_calls": [call]}, {"text": "ok"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        activity = app.chat.activity
        assert "waiting for your answer" in str(activity.render())
        stopped = activity.elapsed()
        await pilot.pause(0.3)
        assert activity.elapsed() == stopped
        await pilot.press("n")
        await turn_done(pilot)


async def test_a_bash_call_that_exits_1_is_a_failure_on_its_card(harness):
    call = {"name": "bash", "input": {"command": "false"}, "id": "c1"}
    app = harness.app([{"tool_calls": [call]}, {"text": "it failed"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        card = app.chat.conv.add_tool("bash", {"command": "false"}, "false", "x")
        card.finish("[exit code 1]", is_error=False, duration=0.1, data={"exit_code": 1})
        await pilot.pause()
        assert card.status == "error"
        assert "✗ bash  false  · exit 1" in screen_text(app)
