"""Keys in the chat screen: scrolling the conversation from the prompt, Tab to the newest item,
typing never lost (issue 19 item 3)."""

from __future__ import annotations

import pytest

from larik.tui.screens.permission import PermissionScreen
from larik.tui.widgets.tool_card import ToolCard

from .conftest import ready, send, turn_done, wait_for

LONG = "\n\n".join(f"paragraph {i}" for i in range(80))
CALLS = [
    {"name": "bash", "input": {"command": "ls"}, "id": "b1"},
    {"name": "bash", "input": {"command": "pwd"}, "id": "b2"},
]


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_page_keys_scroll_the_conversation_while_the_prompt_has_focus(harness, size):
    app = harness.app([{"text": LONG}])
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "talk")
        await turn_done(pilot)
        conv = app.chat.conv
        bottom = conv.scroll_y
        assert bottom == conv.max_scroll_y > 0
        for key in ("pageup", "shift+pageup", "ctrl+pageup"):
            before = conv.scroll_y
            await pilot.press(key)
            await pilot.pause()
            assert conv.scroll_y < before, key
            assert app.focused is app.chat.prompt
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert conv.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert conv.scroll_y > 0
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert conv.scroll_y == conv.max_scroll_y


async def test_tab_goes_to_the_newest_item_and_typing_there_goes_to_the_prompt(harness):
    app = harness.app([{"tool_calls": CALLS}, {"text": "done"}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "look")
        for _ in CALLS:
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
            await pilot.press("y")
        await turn_done(pilot)
        cards = list(app.query(ToolCard))
        await pilot.press("tab")
        assert app.focused is cards[-1]
        await pilot.press("up")
        assert app.focused is cards[0]
        await pilot.press("down", "down")
        assert app.focused is app.chat.prompt
        await pilot.press("tab")
        await pilot.press(*"hello")
        assert app.focused is app.chat.prompt and app.chat.prompt.text == "hello"


def _burst(app, keys: list[tuple[str, str | None]]) -> None:
    """Keys as a fast typist sends them: all queued before the first is handled."""
    from textual import events

    for key, character in keys:
        app.post_message(events.Key(key, character))


@pytest.mark.parametrize("leave", ["typed", "down"])
async def test_a_fast_enter_right_after_leaving_a_tool_card_is_not_lost(harness, leave):
    """Issue 25 item 27: the Enter reached the card (it toggled it) before the focus was back
    on the prompt, and the prompt was never sent."""
    app = harness.app([{"tool_calls": CALLS}, {"text": "done"}, {"text": "second answer"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "look")
        for _ in CALLS:
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
            await pilot.press("y")
        await turn_done(pilot)
        card = list(app.query(ToolCard))[-1]
        expanded = card.expanded if hasattr(card, "expanded") else None
        await pilot.press("tab")
        assert app.focused is card
        if leave == "down":  # Down past the newest item, then the prompt typed at once
            keys = [("down", None), ("h", "h"), ("space", " "), ("i", "i"), ("enter", None)]
        else:  # a letter typed on the card goes to the prompt, and so does all that follows
            keys = [("h", "h"), ("space", " "), ("i", "i"), ("enter", None)]
        _burst(app, keys)
        await wait_for(pilot, lambda: len(harness.provider.requests) == 3)
        await turn_done(pilot)
        sent = harness.provider.requests[2].messages[-1]
        assert [b.text for b in sent.blocks if b.type == "text"] == ["h i"]
        assert app.chat.prompt.text == ""
        if expanded is not None:
            assert card.expanded == expanded  # the Enter did not toggle the card


async def test_page_up_pressed_fast_scrolls_a_page_for_each_press(harness):
    """Tryout A6: PageUp held down (keys queued faster than frames) lost pages."""
    from textual import events

    app = harness.app([{"text": "\n\n".join(f"paragraph {i}" for i in range(300))}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "talk")
        await turn_done(pilot)
        conv = app.chat.conv
        await pilot.pause()
        bottom, page = conv.scroll_y, conv.scrollable_content_region.height
        for _ in range(5):
            app.post_message(events.Key("pageup", None))
        await pilot.pause()
        await pilot.pause()
        assert bottom - conv.scroll_y == pytest.approx(5 * page, abs=1), (bottom, conv.scroll_y)
        for _ in range(100):  # far past the top: the first PageDown after it moves at once
            app.post_message(events.Key("pageup", None))
        await pilot.pause()
        assert conv.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert conv.scroll_y == pytest.approx(page, abs=1)
