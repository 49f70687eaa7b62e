"""The no-model screen says the command that installs the engine into this Larik, whole: its
``[local]`` is text, not markup (issue 43 item 3: the footer showed ``pip install 'larik'``)."""

from __future__ import annotations

import sys

from textual.widgets import Static

from larik.llm.errors import MissingKeyError
from larik.llm.install import extra_command
from larik.llm.local import cpu
from larik.tui.screens.no_model import NoModelScreen

from .conftest import screen_text, wait_for


async def test_the_footer_and_the_page_show_this_installations_command_with_its_extra(
    harness, monkeypatch
):
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # as if the engine were not installed
    monkeypatch.setattr(cpu, "check", lambda: "")  # a CPU that could run it
    command = extra_command("local")
    assert command.endswith("[local]'")
    harness.fail_with = MissingKeyError("anthropic", ["ANTHROPIC_API_KEY"])
    app = harness.app([])
    async with app.run_test(size=(220, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, NoModelScreen))
        await wait_for(pilot, lambda: "the engine is not installed" in screen_text(app))
        assert command in " ".join(screen_text(app).split())  # the page (markdown, wrapped)
        await pilot.press("d")  # the offer cannot run here: the footer says why
        footer = app.screen.query_one("#no-model-pull", Static)
        await wait_for(pilot, lambda: footer.display and "not installed" in screen_text(app))
        lines = screen_text(app).splitlines()
        shown = " ".join(lines[footer.region.y : footer.region.bottom])
        assert f"the engine is not installed: `{command}`, then run larik again" in shown, shown
