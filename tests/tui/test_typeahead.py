"""Type-ahead: Enter during a turn queues the prompt, sent when the turn ends; Esc puts it back
in the prompt; Ctrl+U clears everything before the cursor (issue 19 item 7)."""

from __future__ import annotations

import pytest

from larik.tui.widgets.user_turn import UserTurn

from .conftest import ready, screen_text, send, turn_done, wait_for


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_a_prompt_sent_during_a_turn_is_queued_and_sent_after_it(harness, size):
    app = harness.app([{"text": "first answer"}, {"text": "second answer"}])
    release = harness.hold()  # the first turn runs until the test has typed ahead
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "one")
        await wait_for(pilot, lambda: app.chat.busy)
        await send(pilot, "two")
        await wait_for(pilot, lambda: "queued: two" in screen_text(app))
        assert app.chat.prompt.text == ""
        release.set()
        await wait_for(pilot, lambda: len(harness.provider.requests) == 2)
        await turn_done(pilot)
        assert [u.prompt for u in app.query(UserTurn)] == ["one", "two"]
        assert harness.provider.requests[1].messages[-1].text() == "two"
        assert "queued" not in screen_text(app)


async def test_esc_puts_the_queued_prompt_back_with_the_cursor_at_its_end(harness):
    app = harness.app([{"text": "slow"}])
    harness.hold()  # never let go: Esc ends it
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


@pytest.mark.parametrize("theme", ["larik-dark", "auto"])
def test_what_is_typed_while_larik_starts_is_not_lost(tmp_path, theme):
    """A prompt typed before the first frame: Textual reads it before anything has the focus
    to take it; the app keeps it for the prompt. With ``theme = "auto"`` the terminal is not
    asked then: keys were waiting (larik/tui/background.py)."""
    import json

    from larik.agent.sessions import latest_session
    from larik.agent.transcript import load_transcript
    from larik.config import user_config_path

    from .test_quit_signals import WAIT, Tui
    from .test_quit_signals import wait_for as wait_until

    project = tmp_path / "proj"
    project.mkdir()
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"turns": [{"text": "Hello from the script."}]}))
    config = user_config_path()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[tui]\ntheme = "{theme}"\n')
    tui = Tui(["-m", f"scripted/{script}"], project, typed_before=b"say hi")
    try:
        wait_until(lambda: b"/help" in tui.out, "the TUI to start")
        tui.type("\r")  # the model is there: send what the prompt holds

        def replied() -> bool:
            session = latest_session(project)
            messages = load_transcript(session.path).messages if session else []
            return any("from the script" in m.text() for m in messages)

        wait_until(replied, "the reply to the prompt typed ahead")
        session = latest_session(project)
        assert session is not None
        prompts = [m.text() for m in load_transcript(session.path).messages if m.role == "user"]
        assert prompts == ["say hi"]
        assert b"\x1b]11;?" not in tui.out  # keys were waiting: the terminal was not asked
        tui.proc.kill()
        tui.proc.wait(timeout=WAIT)
    finally:
        tui.close()
