"""Lists of a session's prompts show what the user typed: a custom command's name and
arguments, not the text it expanded to (issue 25 item 21) — the /resume picker and /rewind's."""

from __future__ import annotations

from larik.agent.sessions import list_sessions
from larik.tui.screens.rewind import TurnPickerScreen
from larik.tui.screens.sessions import SessionPickerScreen

from .conftest import ready, screen_text, send, turn_done, wait_for
from .test_real_agent import Real


async def test_resume_and_rewind_list_the_command_as_typed(tmp_path):
    real = Real(tmp_path)
    commands = real.cwd / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "hello.md").write_text("Say hello to $ARGUMENTS, warmly and at length\n")
    app = real.app([{"text": "Hello, world."}, {"text": "again"}])
    async with app.run_test(size=(120, 30)) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: app.chat.custom is not None)
        await send(pilot, "/hello world")
        await turn_done(pilot)
        sent = real.provider.requests[0].messages[-1].text()
        assert sent.startswith("Say hello to world, warmly")  # the model got the expansion
        first = app.chat.session.agent.session_id
        await send(pilot, "/rewind")
        await wait_for(pilot, lambda: isinstance(app.screen, TurnPickerScreen))
        await wait_for(pilot, lambda: "/hello world" in screen_text(app))
        assert "Say hello" not in screen_text(app)
        await pilot.press("escape")
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: app.chat.session.agent.session_id != first)
        await send(pilot, "/resume")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionPickerScreen))
        await wait_for(pilot, lambda: "/hello world" in screen_text(app))
        assert "Say hello" not in screen_text(app)
        await pilot.press("escape")
    [info] = [s for s in list_sessions(real.cwd) if s.id == first]
    assert info.first_prompt == "/hello world"
