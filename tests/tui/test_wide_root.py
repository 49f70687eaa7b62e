"""The TUI started in ``/`` or the home folder asks first (issue 25 item 12): ``w`` works
there, ``q``/``n``/Esc/Enter-on-the-default quits before any config or agent."""

from __future__ import annotations

import pytest

from larik.tui.screens.wide_root import WideRootScreen

from .conftest import ready, screen_text, wait_for

LINE = "/ is the root of the whole file system: the model would read all of it"


@pytest.mark.parametrize("key", ["q", "n", "escape", "enter"])
async def test_no_ends_the_app_before_the_agent_is_made(harness, key):
    app = harness.app([], wide_root=LINE)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WideRootScreen))
        await pilot.pause()
        shown = screen_text(app)
        assert "Work in this folder?" in shown and "root of the whole file system" in shown
        await pilot.press(key)
        await wait_for(pilot, lambda: app.return_code is not None)
    assert harness.factory_calls == []
    assert app.return_code == 0 and app.startup_error == f"larik: not started: {LINE}"


async def test_w_works_there_and_says_so(harness):
    app = harness.app([], wide_root=LINE)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, WideRootScreen))
        await pilot.press("w")
        await ready(pilot)
        await pilot.pause()
        assert "working in / as you asked" in screen_text(app)


async def test_a_project_folder_is_not_asked_about(harness):
    app = harness.app([])
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        assert not isinstance(app.screen, WideRootScreen)
