"""Hooks in the TUI: SessionEnd runs when a session ends, told why (/clear, /exit)."""

from __future__ import annotations

from larik.hooks.config import HooksConfig

from ..tui.conftest import ready, send, turn_done, wait_for
from ..tui.test_real_agent import real  # noqa: F401  (fixture)
from .conftest import logged, py_hook


async def test_session_end_is_told_clear_then_prompt_input_exit(real, tmp_path):  # noqa: F811
    folder = tmp_path / "hooks"
    folder.mkdir()
    real.config.hooks = HooksConfig.model_validate(
        {"SessionEnd": [{"command": py_hook(folder, "end", "log()\n")}]}
    )
    app = real.app([{"text": "one"}, {"text": "two"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "hi")
        await turn_done(pilot)
        first = real.agents[0].session_id
        await send(pilot, "/clear")
        await wait_for(pilot, lambda: len(logged(folder, "end")) == 1)
        await send(pilot, "/exit")
        await wait_for(pilot, lambda: len(logged(folder, "end")) == 2)
    ends = logged(folder, "end")
    assert [e["reason"] for e in ends] == ["clear", "prompt_input_exit"]
    assert ends[0]["session_id"] == first and ends[1]["session_id"] == real.agents[1].session_id
