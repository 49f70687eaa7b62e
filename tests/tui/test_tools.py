"""Tool calls: the permission modal, approval, denial with a reason, and the cards."""

from __future__ import annotations

from larik.tui.screens.permission import PermissionScreen
from larik.tui.widgets.tool_card import ToolCard

from .conftest import ready, screen_text, send, turn_done, wait_for

DIFF = "--- a/app.py\n+++ b/app.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
EDIT = {"name": "edit_file", "input": {"path": "app.py", "diff": DIFF}, "id": "call_1"}


async def test_an_approved_edit_runs_and_its_card_expands_to_the_diff(harness):
    app = harness.app([{"tool_calls": [EDIT]}, {"text": "Changed x."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "set x to 2")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        shown = screen_text(app)
        assert "edit_file" in shown and "+x = 2" in shown and "-x = 1" in shown
        await pilot.press("y")
        await turn_done(pilot)
        card = app.query_one(ToolCard)
        assert card.status == "ok" and card.summary == "app.py"
        result = harness.provider.requests[1].messages[-1].blocks[0]
        assert result.type == "tool_result" and not result.is_error
        card.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert card.expanded and "+x = 2" in screen_text(app)


async def test_a_denied_call_sends_the_typed_reason_to_the_model(harness):
    app = harness.app([{"tool_calls": [EDIT]}, {"text": "OK, I will not."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "set x to 2")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        app.screen.query_one("#reason").focus()
        await pilot.press(*"keep x")
        await pilot.press("enter")
        await turn_done(pilot)
        card = app.query_one(ToolCard)
        assert card.status == "denied"
        result = harness.provider.requests[1].messages[-1].blocks[0]
        assert result.is_error and "keep x" in result.content


async def test_allow_always_is_passed_to_the_agent(harness):
    seen = []
    app = harness.app([{"tool_calls": [EDIT]}, {"text": "done"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        real = harness.agent.approver

        async def spy(req):
            answer = await real(req)
            seen.append(answer)
            return answer

        harness.agent.approver = spy
        await send(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("2")  # allow always (Claude Code's number; "a" too)
        await turn_done(pilot)
    assert seen and seen[0].allow and seen[0].always


async def test_bash_card_shows_the_exit_code(harness):
    call = {"name": "bash", "input": {"command": "pytest -q"}, "id": "c1"}
    app = harness.app([{"tool_calls": [call]}, {"text": "tests pass"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "run the tests")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("y")
        await turn_done(pilot)
        await wait_for(
            pilot, lambda: "exit 0" in screen_text(app) and "pytest -q" in screen_text(app)
        )


async def test_the_edit_dialog_shows_the_diff_and_only_the_arguments_it_does_not_show(harness):
    args = {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2", "replace_all": True}
    call = {"name": "edit_file", "input": {**args, "diff": DIFF}, "id": "call_1"}
    app = harness.app([{"tool_calls": [call]}, {"text": "Changed x."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "set x to 2")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        shown = screen_text(app)
        assert "-x = 1" in shown and "+x = 2" in shown and '"replace_all": true' in shown
        assert "old_string" not in shown and "new_string" not in shown
        await pilot.press("y")
        await turn_done(pilot)


async def test_an_expanded_edit_card_does_not_repeat_what_its_diff_shows(harness):
    args = {"path": "app.py", "old_string": "x = 1", "new_string": "x = 2"}
    call = {"name": "edit_file", "input": {**args, "diff": DIFF}, "id": "call_1"}
    app = harness.app([{"tool_calls": [call]}, {"text": "Changed x."}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "set x to 2")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.press("y")
        await turn_done(pilot)
        card = app.query_one(ToolCard)
        card.focus()
        await pilot.press("enter")
        await pilot.pause()
        shown = screen_text(app)
        assert card.expanded and "+x = 2" in shown
        assert "old_string" not in shown and "new_string" not in shown
