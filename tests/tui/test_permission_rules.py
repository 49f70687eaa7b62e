"""``/permissions`` lists the rules in effect — the config's and what "allow always this
session" added — and ``/permissions forget N`` takes a session rule back: on the real Agent,
with a real ``bash`` call asked, allowed always, listed, forgotten and asked again."""

from __future__ import annotations

from pathlib import Path

import pytest

from larik.config import Config
from larik.tui.screens.permission import PermissionScreen

from .conftest import ready, screen_text, send, turn_done, wait_for
from .test_real_agent import Real

LS = {"name": "bash", "input": {"command": "ls"}, "id": "b1"}


@pytest.fixture
def real(tmp_path: Path) -> Real:
    return Real(tmp_path)


def shown(app) -> str:
    return " ".join(screen_text(app).split())


async def test_a_session_rule_is_listed_and_forgotten_and_its_calls_are_asked_again(real):
    real.config = Config.model_validate({"permissions": {"deny": ["bash: rm *"]}})
    turns = [{"tool_calls": [LS]}, {"text": "listed"}, {"tool_calls": [LS]}, {"text": "again"}]
    app = real.app(turns)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "list")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), timeout=60)
        await pilot.press("2")  # allow always this session
        await turn_done(pilot)
        await send(pilot, "/permissions")
        await wait_for(pilot, lambda: "allowed for this session" in shown(app), timeout=60)
        assert "deny (config): bash: rm *" in shown(app)
        assert "1: bash: ls*" in shown(app)
        await send(pilot, "/permissions forget 1")
        await wait_for(pilot, lambda: "forgot bash: ls*" in shown(app), timeout=60)
        assert app.chat.session.agent.permissions.session_allow == []
        await send(pilot, "list again")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen), timeout=60)
        await pilot.press("y")
        await turn_done(pilot)


async def test_forget_without_such_a_rule_is_one_line(real):
    app = real.app([])
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "/permissions forget 3")
        await wait_for(pilot, lambda: "no session rule 3: there are 0" in shown(app), timeout=60)
        await send(pilot, "/permissions forget x")
        await wait_for(pilot, lambda: "N is a number, not 'x'" in shown(app), timeout=60)
