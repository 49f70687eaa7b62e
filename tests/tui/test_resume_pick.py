"""``larik --resume`` without an ID: the ``/resume`` picker in a terminal (its own small app),
the table when the output is not a terminal."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from larik.agent.sessions import list_sessions

from .test_quit_signals import WAIT, Tui, wait_for

ROOT = Path(__file__).resolve().parents[2]
SESSIONS = [
    SimpleNamespace(id="20260101-101010-aaaaaa", messages=4, first_prompt="fix the parser"),
    SimpleNamespace(id="20250505-090909-bbbbbb", messages=2, first_prompt="add a test\nfor it"),
]


async def test_the_picker_returns_the_session_chosen_with_the_keys():
    from textual.widgets import OptionList

    from larik.tui.screens.sessions import SessionPickApp

    app = SessionPickApp(SESSIONS)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        shown = app.screen.query_one(OptionList)
        lines = [str(shown.get_option_at_index(i).prompt) for i in range(shown.option_count)]
        assert lines[0].startswith("20260101-101010-aaaaaa") and "fix the parser" in lines[0]
        assert "add a test for it" in lines[1]  # one line each
        await pilot.press("down", "enter")
        await pilot.pause()
    assert app.return_value == "20250505-090909-bbbbbb"


async def test_escape_and_ctrl_c_leave_the_picker_with_nothing_picked():
    from larik.tui.screens.sessions import SessionPickApp

    for key in ("escape", "ctrl+c"):
        app = SessionPickApp(SESSIONS)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.press(key)
            await pilot.pause()
        assert app.return_value is None, key


def _session(project: Path, tmp_path: Path, prompt: str) -> str:
    script = tmp_path / "first.json"
    script.write_text(json.dumps({"turns": [{"text": "noted"}]}))
    argv = [sys.executable, "-m", "larik.cli", "-p", prompt, "-m", f"scripted/{script}"]
    done = subprocess.run(
        [*argv, "--output-format", "json"], cwd=project, capture_output=True, text=True,
        timeout=WAIT, env=_env(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["session_id"])


def _env() -> dict[str, str]:
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT)}


def test_bare_resume_in_a_terminal_opens_the_picker_and_resumes_the_pick(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    sid = _session(project, tmp_path, "the session to pick")
    script = tmp_path / "next.json"
    script.write_text(json.dumps({"turns": [{"text": "again"}]}))
    tui = Tui(["--resume", "-m", f"scripted/{script}"], project)
    try:
        wait_for(lambda: b"Resume a session" in tui.out, "the picker")
        assert b"Resume one with" not in tui.out  # not the table of ids to copy
        tui.type("\r")
        wait_for(lambda: b"resumed session" in tui.out, "the TUI on the session picked")
        tui.proc.send_signal(signal.SIGTERM)
        assert tui.proc.wait(timeout=WAIT) == 128 + signal.SIGTERM
        tui.reader.join(timeout=WAIT)
        assert f"Session {sid} saved".encode() in tui.out  # the picked one went on
        assert [s.id for s in list_sessions(project)] == [sid]  # no new session
    finally:
        tui.close()


def test_bare_resume_piped_prints_the_table(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    sid = _session(project, tmp_path, "the session to list")
    done = subprocess.run(
        [sys.executable, "-m", "larik.cli", "--resume"], cwd=project, capture_output=True,
        text=True, timeout=WAIT, env=_env(), stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    header, row = done.stdout.splitlines()[:2]
    assert header.startswith("ID") and row.startswith(sid) and "the session to list" in row
    assert "\x1b[" not in done.stdout  # a table, no terminal app
