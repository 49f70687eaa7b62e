"""Plan mode in the TUI on the real Agent: Shift+Tab cycles the modes; a plan is accepted (the
model carries it out in the chosen mode) or refined (still planning, nothing changed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from larik.agent import Agent, plan
from larik.config import Config
from larik.llm.providers.scripted import ScriptedProvider
from larik.routing import Resolved
from larik.tui.app import LarikApp
from larik.tui.screens.plan import CHOICES, PlanScreen
from larik.tui.widgets.status_bar import status_text

from .conftest import ready, screen_text, send, turn_done, wait_for

ORIGINAL = "def add(a, b):\n    return a - b\n"
PLAN = "1. In calc.py change `a - b` to `a + b`."
READ = {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}, "id": "r1"}]}
EDIT = {
    "tool_calls": [
        {
            "name": "edit_file",
            "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
            "id": "e1",
        }
    ]
}


class Planner:
    def __init__(self, root: Path) -> None:
        self.cwd = root / "project"
        self.cwd.mkdir()
        (self.cwd / "calc.py").write_text(ORIGINAL)
        self.provider: ScriptedProvider | None = None

    def app(self, turns: list[dict[str, Any]], mode: str = "ask") -> LarikApp:
        self.provider = provider = ScriptedProvider(turns)

        def resolve(spec: str) -> Resolved:
            return Resolved(provider, "model-a", "scripted", None, "scripted/model-a")

        async def factory(*, approver: Any, model: str = "", resume: str | None = None) -> Any:
            return await Agent.create(
                cwd=self.cwd,
                config=Config(),
                approver=approver,
                resume=resume,
                resolver=resolve,
                permission_mode=mode,
            )

        async def no_local(config: Any = None) -> list:
            return []

        return LarikApp(factory, cwd=self.cwd, config=Config(), discover_local=no_local)


@pytest.fixture
def planner(tmp_path: Path) -> Planner:
    return Planner(tmp_path)


async def modes_after_shift_tab(pilot: Any, app: Any, presses: int) -> list[str]:
    seen = []
    for _ in range(presses):
        await pilot.press("shift+tab")
        await pilot.pause()
        seen.append(app.chat.session.agent.permission_mode)
    return seen


async def test_shift_tab_cycles_ask_edits_plan(planner):
    app = planner.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert app.focused is app.chat.prompt  # Shift+Tab is not taken as "focus back"
        assert await modes_after_shift_tab(pilot, app, 4) == ["edits", "plan", "ask", "edits"]
        await pilot.press("shift+tab")
        await pilot.pause()
        assert status_text(app.chat.session.status).plain.endswith(" · plan")
        assert app.focused is app.chat.prompt


async def test_yolo_is_in_the_cycle_only_for_a_session_that_started_in_it(planner):
    app = planner.app([], mode="yolo")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        assert await modes_after_shift_tab(pilot, app, 4) == ["ask", "edits", "plan", "yolo"]


async def test_an_accepted_plan_is_carried_out_in_edits_mode(planner):
    app = planner.app([READ, {"text": PLAN}, READ, EDIT, {"text": "Done."}], mode="plan")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "fix add")
        await wait_for(pilot, lambda: isinstance(app.screen, PlanScreen))
        assert (planner.cwd / "calc.py").read_text() == ORIGINAL
        await pilot.press("e")
        await wait_for(pilot, lambda: "Done." in screen_text(app))
        await turn_done(pilot)
        agent = app.chat.session.agent
        assert agent.permission_mode == "edits"
        assert (planner.cwd / "calc.py").read_text() == ORIGINAL.replace("a - b", "a + b")
        prompts = [m.blocks[0].text for m in agent.messages if m.role == "user" and m.text()]
        assert plan.accepted("edits") in prompts
        assert not isinstance(app.screen, PlanScreen)  # no plan offered after the work turn


async def test_refining_keeps_plan_mode_and_changes_nothing(planner):
    app = planner.app([{"text": PLAN}, EDIT, {"text": "Refined plan."}], mode="plan")
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "fix add")
        await wait_for(pilot, lambda: isinstance(app.screen, PlanScreen))
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, PlanScreen))
        agent = app.chat.session.agent
        assert agent.permission_mode == "plan" and app.focused is app.chat.prompt
        assert "still in plan mode" in screen_text(app)
        await send(pilot, "also handle floats")
        await wait_for(pilot, lambda: isinstance(app.screen, PlanScreen))
        # the model tried to edit while refining: refused, the file is as it was
        assert (planner.cwd / "calc.py").read_text() == ORIGINAL
        results = [b for m in agent.messages for b in m.blocks if b.type == "tool_result"]
        assert results[-1].is_error and "plan mode" in results[-1].content
        await pilot.press("r")
        await wait_for(pilot, lambda: not isinstance(app.screen, PlanScreen))
        assert agent.permission_mode == "plan"


async def test_permissions_command_knows_plan(planner):
    app = planner.app([])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/permissions plan")
        await wait_for(pilot, lambda: app.chat.session.agent.permission_mode == "plan")
        assert "read and search only" in screen_text(app)


@pytest.mark.parametrize("size", [(80, 24), (120, 35)])
async def test_the_plan_question_shows_every_choice_and_leaves_the_plan_in_view(planner, size):
    """At 80 columns the three buttons side by side were wider than the dialog: 'No, keep
    planning' was cut to 'No, keep'; and the dialog in the middle hid the plan it asked about."""
    app = planner.app([{"text": "## Plan\n\n1. first step\n2. LAST-STEP-OF-THE-PLAN"}], "plan")
    async with app.run_test(size=size) as pilot:
        await ready(pilot)
        await send(pilot, "plan it")
        await wait_for(pilot, lambda: isinstance(app.screen, PlanScreen))
        await pilot.pause()
        text = screen_text(app)
        for label in CHOICES.values():
            assert label in text, label
        assert "LAST-STEP-OF-THE-PLAN" in text
        await pilot.press("r")
