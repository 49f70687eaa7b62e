"""A resumed session looks as the live one did (issue 19 items 14, 28): tool cards' states,
summaries, exit codes and durations, a turn's error, the context in use, `!command` cards
(item 8); and a `!command`'s output is live, kept in view, its tail shown and all of it on
demand (item 8)."""

from __future__ import annotations

import re

import pytest

from larik.tui.screens.permission import PermissionScreen
from larik.tui.screens.sessions import SessionPickerScreen
from larik.tui.widgets.notice import Notice
from larik.tui.widgets.tool_card import ToolCard

from .conftest import ready, screen_text, send, turn_done, wait_for
from .test_real_agent import Real


def cards(app) -> list[str]:
    return [" ".join(c._header_text().plain.split()) for c in app.query(ToolCard)]


def status_ctx(app) -> str:
    return re.search(r"ctx \d+%", screen_text(app).splitlines()[-1]).group(0)


TURNS = [
    {
        "tool_calls": [
            {"name": "grep", "input": {"pattern": "def", "path": "."}, "id": "g1"},
            {"name": "read_file", "input": {"path": "calc.py"}, "id": "r1"},
        ]
    },
    {
        "tool_calls": [
            {
                "name": "edit_file",
                "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
                "id": "e1",
            }
        ]
    },
    {"tool_calls": [{"name": "bash", "input": {"command": "echo failing; exit 1"}, "id": "b1"}]},
    {"text": "The tests fail.", "usage": {"input": 9000, "output": 500}},
    {"error": {"status": 429, "message": "rate limited"}},
]


async def test_a_resumed_session_shows_cards_errors_and_context_as_the_live_one(tmp_path):
    real = Real(tmp_path)
    (real.cwd / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    app = real.app([*TURNS, {"text": "new session"}])
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "fix calc")
        for answer in ("n", "y"):  # deny the edit, run the command
            await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
            await pilot.press(answer)
        await turn_done(pilot)
        await send(pilot, "again")
        await turn_done(pilot)
        await send(pilot, "!echo from the user")
        await wait_for(pilot, lambda: any("echo from the user" in c for c in cards(app)))
        await wait_for(pilot, lambda: "exit 0" in cards(app)[-1])
        live_cards = cards(app)
        live_errors = [n.text for n in app.query(Notice) if n.level == "error"]
        live_ctx = status_ctx(app)
        first = app.session_id
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.session_id != first)
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session_id == first)
        await wait_for(pilot, lambda: cards(app) == live_cards)  # drawn again, as it was
        assert cards(app) == live_cards
        assert [n.text for n in app.query(Notice) if n.level == "error"] == live_errors
        assert status_ctx(app) == live_ctx
    assert any(c.startswith("⊘ edit_file calc.py") for c in live_cards)
    assert any(c.startswith("✗ bash echo failing; exit 1 · exit 1") for c in live_cards)
    assert any(c.startswith("✓ grep /def/") for c in live_cards)
    assert any(c.startswith("✓ ! echo from the user · exit 0") for c in live_cards)
    assert live_errors and "rate limited" in live_errors[0]


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_a_long_command_output_shows_its_tail_then_all_of_it_and_stays_in_view(harness, size):
    app = harness.app([{"text": "\n\n".join(f"para {i}" for i in range(60))}])
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "talk")
        await turn_done(pilot)
        app.chat.conv.scroll_home(animate=False)  # reading back
        await send(pilot, "!seq 1 3000")
        await wait_for(pilot, lambda: "exit 0" in cards(app)[-1])
        conv = app.chat.conv
        card = list(app.query(ToolCard))[-1]
        hint = "… 2,801 earlier lines (Enter shows them all)"
        # the finished card is drawn, then scrolled to (on a loaded machine, a few frames later)
        await wait_for(pilot, lambda: any(line.strip() == hint for line in card.plain_lines()))
        await wait_for(pilot, lambda: conv.scroll_y == conv.max_scroll_y)  # the card is in view
        await wait_for(pilot, lambda: "3000" in screen_text(app).split())  # its end on screen
        card.focus()
        await pilot.press("enter")
        await pilot.pause()
        plain = [line.strip() for line in card.plain_lines()]
        assert "1" in plain and "3000" in plain and "earlier lines" not in " ".join(plain)
        await pilot.press("enter")
        await pilot.pause()
        assert not card.expanded


async def test_a_command_shows_its_output_while_it_runs(harness):
    app = harness.app([])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await send(pilot, "!printf 'out%s\\n' put; sleep 30")  # prints "output"
        await wait_for(pilot, lambda: bool(app.query(ToolCard)))
        card = list(app.query(ToolCard))[-1]
        await wait_for(pilot, lambda: "output" in screen_text(app))
        assert card.status == "running"
        await pilot.press("escape")
        await wait_for(pilot, lambda: card.status == "interrupted")


async def test_an_interrupted_command_resumes_as_interrupted_not_failed(tmp_path):
    """Esc during a command: live, the card is ◼ interrupted and an "interrupted" notice
    follows; resumed, the card was ✗ (a failure) and the notice was gone (it was skipped on
    the message holding the interrupted call's answer)."""
    real = Real(tmp_path)
    call = {"name": "bash", "input": {"command": "echo started; sleep 30"}, "id": "b1"}
    app = real.app([{"tool_calls": [call]}, {"text": "new session"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "run it")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("y")
        await wait_for(pilot, lambda: "started" in screen_text(app))
        await pilot.press("escape")
        await turn_done(pilot)
        live = [n.text for n in app.query(Notice) if n.level == "warning"]
        assert cards(app)[-1].startswith("◼ bash echo started; sleep 30 · interrupted")
        first = app.session_id
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.session_id != first)
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session_id == first)
        await wait_for(pilot, lambda: cards(app) and "interrupted" in cards(app)[-1])  # drawn
        assert cards(app)[-1].startswith("◼ bash echo started; sleep 30 · interrupted")
        assert [n.text for n in app.query(Notice) if n.level == "warning"] == live
    assert live == ["interrupted"]
