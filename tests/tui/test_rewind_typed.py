"""/rewind gives back the prompt as it was typed, and lists it so (issue 43 item 5): after
``@mathx.py``, it gave back the expanded ``<file path=…>…</file>``, and sending that attached
the file twice. On the real Agent with a scripted model, real git and real files."""

from __future__ import annotations

import pytest

from larik.tui.screens.rewind import RewindChoiceScreen, TurnPickerScreen

from .conftest import ready, screen_text, send, turn_done, wait_for
from .test_undo import Undoable, _undo_running, reply

SIZES = [(80, 24), (120, 40)]
TYPED = "@mathx.py what does it do"


@pytest.fixture
def proj(tmp_path) -> Undoable:
    p = Undoable(tmp_path)
    (p.cwd / "mathx.py").write_text("def double(x):\n    return 2 * x\n")
    return p


def _sent_files(proj: Undoable) -> list[int]:
    """For each request the model got, how many files its last user message carried."""
    assert proj.provider is not None
    return [
        sum(b.text.count('<file path="mathx.py">') for b in r.messages[-1].blocks if b.text)
        for r in proj.provider.requests
    ]


@pytest.mark.parametrize("size", SIZES)
async def test_rewind_lists_and_gives_back_the_prompt_as_typed(proj, size):
    app = proj.app([reply("it doubles"), reply("two"), reply("again")])
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, TYPED)
        await turn_done(pilot)
        await send(pilot, "and then")
        await turn_done(pilot)
        assert _sent_files(proj) == [1, 0]
        old = app.chat.session.agent
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, TurnPickerScreen))
        await wait_for(pilot, lambda: TYPED in screen_text(app))
        assert "<file" not in screen_text(app)
        await pilot.press("down", "enter")  # newest first: turn 2, then turn 1
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen))
        await wait_for(pilot, lambda: f"before turn 1: {TYPED}" in screen_text(app))
        await pilot.press("c")
        await wait_for(pilot, lambda: app.chat.session.agent is not old and not _undo_running(app))
        await wait_for(pilot, lambda: app.chat.prompt.text == TYPED)
        await pilot.press("enter")  # sent again: the file goes once
        await turn_done(pilot)
        assert _sent_files(proj) == [1, 0, 1]


@pytest.mark.parametrize("size", SIZES)
async def test_a_resumed_session_lists_the_prompt_as_typed(proj, size):
    """The fork's turns are read back from its transcript: the typed text is kept there."""
    app = proj.app([reply("it doubles"), reply("two")])
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, TYPED)
        await turn_done(pilot)
        await send(pilot, "and then")
        await turn_done(pilot)
        old = app.chat.session.agent
        await send(pilot, "/rewind 2")
        await wait_for(pilot, lambda: isinstance(app.screen, RewindChoiceScreen))
        await pilot.press("c")
        await wait_for(pilot, lambda: app.chat.session.agent is not old and not _undo_running(app))
        assert [t.prompt for t in app.chat.session.agent.checkpoints.turns] == [TYPED]
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, TurnPickerScreen))
        await wait_for(pilot, lambda: TYPED in screen_text(app))
        assert "<file" not in screen_text(app)
