"""The permission dialog shows what a call asks for, not what it restates: an argument the model
set to its default (``timeout: 120.0``, ``replace_all: false``, a null) is left out, one set to
something else is shown (issue 25 item 19)."""

from __future__ import annotations

from larik.tui.screens.permission import PermissionScreen

from .conftest import ready, send, turn_done, wait_for
from .test_permission_dialog import dialog_text
from .test_real_agent import Real

READ = {"name": "read_file", "input": {"path": "a.py"}, "id": "r1"}


async def _dialog_for(tmp_path, call) -> tuple[str, Real]:
    real = Real(tmp_path)
    (real.cwd / "a.py").write_text("x = 1\n")
    app = real.app([{"tool_calls": [READ]}, {"tool_calls": [call]}, {"text": "Done."}])
    async with app.run_test(size=(120, 35)) as pilot:
        await ready(pilot)
        await send(pilot, "go")
        await wait_for(pilot, lambda: isinstance(app.screen, PermissionScreen))
        await pilot.pause()
        shown = dialog_text(app)
        await pilot.press("n")
        await turn_done(pilot)
    return shown, real


async def test_a_commands_default_timeout_and_flags_are_not_shown(tmp_path):
    call = {
        "name": "bash",
        "input": {"command": "touch made", "timeout": 120, "background": False, "sandbox": None},
        "id": "b1",
    }
    shown, _ = await _dialog_for(tmp_path, call)
    assert "$ touch made" in shown
    assert "timeout" not in shown and "background" not in shown and "sandbox" not in shown


async def test_an_argument_that_differs_from_its_default_is_shown(tmp_path):
    call = {"name": "bash", "input": {"command": "touch made", "timeout": 5}, "id": "b1"}
    shown, _ = await _dialog_for(tmp_path, call)
    assert "timeout" in shown and "5" in shown


async def test_an_edits_replace_all_false_is_not_shown(tmp_path):
    edit = {"path": "a.py", "old_string": "x = 1", "new_string": "x = 2", "replace_all": False}
    shown, real = await _dialog_for(tmp_path, {"name": "edit_file", "input": edit, "id": "e1"})
    assert "x = 2" in shown and "replace_all" not in shown and "confirm" not in shown
    assert (real.cwd / "a.py").read_text() == "x = 1\n"
