"""The permission dialog names the rule "allow always" would add (issue 19 item 6)."""

from __future__ import annotations

from pathlib import Path

import pytest

from larik.tui.screens.permission import PermissionScreen

from .conftest import ready, screen_text, send, turn_done, wait_for
from .test_real_agent import Real


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_allow_always_shows_the_narrowest_rule_for_the_command(tmp_path: Path, size):
    real = Real(tmp_path)
    call = {"name": "bash", "input": {"command": "python -m pytest -q"}, "id": "b1"}
    app = real.app([{"tool_calls": [call]}, {"text": "Not run."}])
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "run the tests")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        shown = screen_text(app)
        assert "allow always covers: 'bash: python -m pytest*'" in shown
        assert "bash commands: python" not in shown
        await pilot.press("n")
        await turn_done(pilot)
