"""Small things a new user tripped over (issue 19's cosmetic items), each at the sizes it was
seen at."""

from __future__ import annotations

import pytest
from textual.selection import Selection
from textual.widgets._toast import Toast

from larik.tui.widgets.streaming_markdown import StreamingMarkdown

from .conftest import ready, screen_text, send, turn_done, wait_for

SIZES = [(80, 24), (120, 35)]


@pytest.mark.parametrize("size", SIZES)
async def test_toasts_are_not_drawn_over_the_prompt_or_the_status_line(harness, size):
    """item 15"""
    app = harness.app([])
    async with app.run_test(size=size, notifications=True) as pilot:
        await ready(pilot)
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: bool(app.screen.query(Toast)))
        await wait_for(pilot, lambda: app.screen.query_one(Toast).region.area > 0)  # laid out
        await pilot.pause()
        toast = app.screen.query_one(Toast).region
        for widget in (app.chat.prompt, app.chat.status):
            assert not toast.overlaps(widget.region), widget


async def test_mouse_selected_reply_text_stays_readable(harness):
    """item 16: the selection kept the text's colour as its foreground... the background's."""
    app = harness.app([{"text": "Hello **there** friend."}])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        reply = app.query_one(StreamingMarkdown)
        app.screen.selections = {reply: Selection(None, None)}
        await pilot.pause()
        segments = [s for y in range(reply.region.height) for s in reply.render_line(y)]
        shown = [s for s in segments if s.text.strip()]
        assert shown and app.screen.get_selected_text() == "Hello there friend."
        for seg in shown:
            assert seg.style.color != seg.style.bgcolor, seg


def test_context_windows_are_at_most_five_columns():
    """item 20"""
    from larik.tui.models import format_window

    assert [format_window(n) for n in (1_048_576, 2_000_000, 1_500_000, 131_072, None)] == [
        "1M",
        "2M",
        "1.5M",
        "131k",
        "?",
    ]


@pytest.mark.parametrize("size", SIZES)
async def test_a_local_models_name_is_cut_only_when_it_must_be(harness, size):
    """item 20: the picker kept 30 columns for window, price and tag whatever they took."""
    from larik.config import Config
    from larik.tui.local_servers import LocalModel
    from larik.tui.screens.model_picker import ModelPickerScreen

    gguf = "/work/models/SmolLM2-135M-Instruct.Q4_1.gguf"
    harness.local = [LocalModel("llamacpp", gguf, "llama.cpp", 8192)]
    app = harness.app([], config=Config())
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "/model")
        await wait_for(
            pilot, lambda: isinstance(app.screen, ModelPickerScreen) and not app.screen.searching
        )
        await wait_for(pilot, lambda: "SmolLM2" in screen_text(app))
        row = next(line for line in screen_text(app).splitlines() if "SmolLM2" in line)
        assert "llamacpp/…/SmolLM2-135M-Instruct.Q4_1.gguf" in row or gguf in row
        assert "8k" in row and "?" not in row and "free" in row and "local" in row


@pytest.mark.parametrize("width", [60, 50])
async def test_a_narrow_status_line_keeps_context_cost_and_permission_mode(harness, width):
    """item 21: at 60 columns cost and mode were cut off the end."""
    app = harness.app([{"text": "ok", "usage": {"input": 9000, "output": 1600}}])
    async with app.run_test(size=(width, 24)) as pilot:
        await ready(pilot)
        harness.agent.reply_cost = 0.0213
        await send(pilot, "hi")
        await turn_done(pilot)
        status = screen_text(app).splitlines()[-1]
        assert status.rstrip().endswith("· $0.0213 · ask"), status
        assert "ctx " in status and "scripted/" in status and "…" not in status[-20:]


@pytest.mark.parametrize("size", SIZES)
async def test_the_no_model_screen_shows_its_keys_without_scrolling(harness, size):
    """item 18: "Press r to look again, q to quit" was at the bottom of a long page."""
    from larik.llm.errors import MissingKeyError
    from larik.tui.screens.no_model import NoModelScreen

    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    app = harness.app([])
    async with app.run_test(size=size) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, NoModelScreen))
        await pilot.pause()
        lines = screen_text(app).splitlines()
        assert "r: look again · q: quit" in lines[-1]
        body = app.screen.query_one("VerticalScroll")
        await pilot.press("pagedown")
        await pilot.pause()
        assert body.scroll_y > 0
        await pilot.press("r")
        await wait_for(pilot, lambda: len(harness.factory_calls) == 2)
