"""Hooks in the TUI: SessionEnd runs when a session ends, told why (/clear, /exit)."""

from __future__ import annotations

from larik.hooks.config import HooksConfig
from tests.patience import WAIT

from ..tui.conftest import ready, send, turn_done, wait_for
from ..tui.test_real_agent import real  # noqa: F401  (fixture)
from .conftest import logged, py_hook


async def test_session_end_is_told_clear_then_prompt_input_exit(real, tmp_path):  # noqa: F811
    folder = real.cwd / ".hooks"  # in the project: hooks run in the OS sandbox
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


async def test_ctrl_c_twice_while_session_end_hooks_run_leaves_at_once(
    real,  # noqa: F811
    mark,
    monkeypatch,
):
    """/exit waits for SessionEnd's hooks (up to their shared budget) with the screen live; the
    user who presses Ctrl+C twice meanwhile is not kept waiting, and the hooks do not run a
    second time: the app exits, and the hook still running is killed with its process group.
    The hook and the budget outlast the test's ceiling: only the keys can have ended it."""
    from larik.hooks import runner

    from ..procs import all_gone

    monkeypatch.setattr(runner, "SESSION_END_BUDGET", 10 * WAIT)
    folder = real.cwd / ".hooks"  # in the project: hooks run in the OS sandbox
    folder.mkdir()
    pid_file = folder / "hung.pid"
    hung = f"echo $$ >> {pid_file}; exec sleep {10 * WAIT:g}"
    real.config.hooks = HooksConfig.model_validate(
        {"SessionEnd": [{"hooks": [{"command": hung, "timeout": 600}]}]}
    )
    app = real.app([{"text": "one"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        await send(pilot, "/exit")
        await wait_for(pilot, lambda: pid_file.exists())
        await pilot.press("ctrl+c")
        await pilot.press("ctrl+c")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert len(pid_file.read_text().split()) == 1  # SessionEnd ran once
    assert await all_gone(mark)  # killed (found by mark: its pid is its sandbox's)


async def test_a_notification_runs_the_notification_hooks_with_claude_codes_fields(
    real,  # noqa: F811
    monkeypatch,
):
    from textual import events

    from larik.config import Config

    folder = real.cwd / ".hooks"
    folder.mkdir()
    monkeypatch.setenv("TERM_PROGRAM", "iTerm.app")
    real.config = Config.model_validate({"tui": {"notify": "off"}})
    real.config.hooks = HooksConfig.model_validate(
        {
            "Notification": [
                {"matcher": "idle_prompt", "command": py_hook(folder, "idle", "log()\n")},
                {"matcher": "permission_prompt", "command": py_hook(folder, "ask", "log()\n")},
            ]
        }
    )
    app = real.app([{"text": "All done.\nmore"}])
    async with app.run_test(size=(100, 30)) as pilot:
        await ready(pilot)
        written: list[str] = []
        app.chat.notifier.write = written.append
        await send(pilot, "hi")
        app.post_message(events.AppBlur())  # the terminal lost focus (after the keys)
        await turn_done(pilot)
        await wait_for(pilot, lambda: len(logged(folder, "idle")) == 1)
    [event] = logged(folder, "idle")
    assert event["hook_event_name"] == "Notification"
    assert event["notification_type"] == "idle_prompt"
    assert event["message"] == "finished: All done." and event["title"].startswith("Larik")
    assert event["session_id"] == real.agents[0].session_id and event["transcript_path"]
    assert logged(folder, "ask") == []  # its matcher names another kind
    assert written == []  # notify = "off": nothing to the terminal, the hooks still run


def test_a_notification_hook_cannot_block_and_a_project_one_needs_trust(tmp_path):
    from larik.config import load_config

    from .test_claude_settings import CLAUDE, claude

    claude(tmp_path, CLAUDE)  # its Notification hook: notify-send
    assert load_config(tmp_path).hooks.Notification == []  # untrusted: none of its hooks
    trusted = load_config(tmp_path, trust_project=True).hooks.Notification
    assert [e.commands()[0].command for e in trusted] == ["notify-send hi"]
