"""Type-ahead: Enter during a turn queues the prompt, sent when the turn ends; Esc puts it back
in the prompt; Ctrl+U clears everything before the cursor (issue 19 item 7)."""

from __future__ import annotations

import pytest

from larik.tui.widgets.user_turn import UserTurn

from .conftest import ready, screen_text, send, turn_done, wait_for


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_a_prompt_sent_during_a_turn_is_queued_and_sent_after_it(harness, size):
    app = harness.app([{"text": "first answer", "delay": 0.3}, {"text": "second answer"}])
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "one")
        await wait_for(pilot, lambda: app.chat.busy)
        await send(pilot, "two")
        assert "queued: two" in screen_text(app)
        assert app.chat.prompt.text == ""
        await wait_for(pilot, lambda: len(harness.provider.requests) == 2)
        await turn_done(pilot)
        assert [u.prompt for u in app.query(UserTurn)] == ["one", "two"]
        assert harness.provider.requests[1].messages[-1].text() == "two"
        assert "queued" not in screen_text(app)


async def test_esc_puts_the_queued_prompt_back_with_the_cursor_at_its_end(harness):
    app = harness.app([{"text": "slow", "delay": 30}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "one")
        await wait_for(pilot, lambda: app.chat.busy)
        await send(pilot, "two")
        await pilot.press("escape")
        await turn_done(pilot)
        prompt = app.chat.prompt
        assert prompt.text == "two" and prompt.cursor_location == (0, 3)
        assert len(harness.provider.requests) == 1  # nothing was sent on its own
        await pilot.press("ctrl+u")
        assert prompt.text == ""


async def test_ctrl_u_clears_every_line_before_the_cursor(harness):
    app = harness.app([])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        prompt = app.chat.prompt
        prompt.focus()
        await pilot.press(*"/exit", "ctrl+j", *"hello")
        await pilot.press("ctrl+u")
        assert prompt.text == ""
