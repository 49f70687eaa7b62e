"""What the user sees of the diagnostics (issue 28): print mode's JSON as a real process with
the real ``ruff server``, the TUI's tool card and status line, ``/lsp``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.patience import LSP_WAITS, WAIT

from ..test_printmode import write_script
from .test_lsp import RUFF


def _user_config(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        "[lsp]\nenabled = true\n"
        + "".join(f"{key} = {value}\n" for key, value in LSP_WAITS.items())
        + f'[lsp.servers.ruff]\ncommand = ["{RUFF}", "server"]\nlanguages = ["python"]\n'
    )


def test_print_modes_json_carries_the_diagnostics_an_edit_introduced_and_none_once_fixed(
    tmp_path,
):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "app.py").write_text("import sys\n\nprint(sys.argv)\n")
    _user_config(Path(os.environ["LARIK_HOME"]))
    edit = lambda old, new: {  # noqa: E731
        "tool_calls": [
            {"name": "edit_file", "input": {"path": "app.py", "old_string": old, "new_string": new}}
        ]
    }
    model = write_script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}}]},
        edit("sys.argv", "sys.argv, argz"),
        edit(", argz", ""),
        {"text": "Done."},
    )
    argv = ["-p", "edit", "-m", model, "--permission-mode", "edits", "--output-format"]
    proc = subprocess.run(
        [sys.executable, "-m", "larik.cli", *argv, "stream-json"],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        timeout=WAIT,
    )
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    ends = [e for e in events if e["type"] == "tool_end" and e["tool_name"] == "edit_file"]
    assert len(ends) == 2
    broke, fixed = ends
    assert broke["data"]["diagnostics"] == ["app.py:3:17 error F821 Undefined name `argz`"]
    assert broke["text"].endswith("app.py:3:17 error F821 Undefined name `argz`")
    assert "diagnostics" not in fixed["data"] and "language server" not in fixed["text"]
    assert (root / "app.py").read_text() == "import sys\n\nprint(sys.argv)\n"


async def test_the_tui_card_shows_the_diagnostics_and_the_status_line_counts_them(tmp_path):
    from larik.config.tables import LspConfig, LspServerConfig, PermissionsConfig
    from larik.tui.widgets.tool_card import ToolCard

    from ..tui.conftest import ready, screen_text, send, turn_done, wait_for
    from ..tui.test_real_agent import Real

    real = Real(tmp_path)
    (real.cwd / "app.py").write_text("import sys\n\nprint(sys.argv)\n")
    real.config.permissions = PermissionsConfig(mode="edits")
    real.config.lsp = LspConfig(
        enabled=True,
        **LSP_WAITS,
        servers={"ruff": LspServerConfig(command=[RUFF, "server"], languages=["python"])},
    )
    edit = {"path": "app.py", "old_string": "sys.argv", "new_string": "sys.argv, argz"}
    app = real.app(
        [
            {"tool_calls": [{"name": "read_file", "input": {"path": "app.py"}, "id": "r"}]},
            {"tool_calls": [{"name": "edit_file", "input": edit, "id": "e"}]},
            {"text": "Edited."},
        ]
    )
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        await send(pilot, "edit app.py")
        await wait_for(pilot, lambda: "Edited." in screen_text(app), timeout=WAIT)
        await turn_done(pilot)
        card = [c for c in app.query(ToolCard) if c.tool_name == "edit_file"][0]
        assert "edit_file  app.py" in screen_text(app)
        assert (
            "· 1 diagnostic"
            in card.header_of(card.tool_name, card.summary, card.status, card.data).plain
        )
        card.focus()
        await pilot.press("enter")  # opened: the diff, then what the server said
        await wait_for(pilot, lambda: "F821 Undefined name `argz`" in screen_text(app))
        assert "app.py:3:17 error F821 Undefined name `argz`" in screen_text(app)
        status = screen_text(app).rstrip().splitlines()[-1]
        assert "· 1 diagnostic ·" in status, status
        await send(pilot, "/lsp")  # what runs, and what it said last (larik lsp's own lines)
        await wait_for(pilot, lambda: "language servers (docs/lsp.md)" in screen_text(app))
        text = screen_text(app)
        ruff_line = next(x for x in text.splitlines() if x.strip().startswith("ruff "))
        assert f"{RUFF} — running" in ruff_line
        assert "    app.py:3:17 error F821 Undefined name `argz`" in text
        assert real.agents[0].lsp.status()["count"] == 1


def test_larik_lsp_and_slash_lsp_print_the_same_lines(tmp_path, monkeypatch):
    import contextlib
    import io

    from larik.commands.lsp import lsp_cmd
    from larik.config import load_config
    from larik.lsp.session import LspSession, status_text

    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        lsp_cmd(json_out=False)
    expected = status_text(LspSession(load_config(tmp_path), tmp_path).status())
    assert out.getvalue() == expected + "\n" and "pylsp" in expected


def test_the_agent_says_an_error_once_in_a_step_that_edits_the_file_twice(tmp_path):
    import asyncio

    from larik.agent import Agent
    from larik.config import Config
    from larik.config.tables import LspConfig, LspServerConfig, PermissionsConfig

    root = tmp_path / "proj"
    root.mkdir()
    (root / "s.py").write_text("a = 1\nb = 2\n")

    def edit(old, new, id_):
        call = {"path": "s.py", "old_string": old, "new_string": new}
        return {"name": "edit_file", "input": call, "id": id_}

    model = write_script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "read_file", "input": {"path": "s.py"}, "id": "r"}]},
        {"tool_calls": [edit("a = 1", "a = nope", "e1"), edit("b = 2", "b = nope", "e2")]},
        {"tool_calls": [edit("b = nope", "b = nope\nc = nope", "e3")]},
        {"text": "Done."},
    )
    config = Config(
        permissions=PermissionsConfig(mode="yolo"),
        lsp=LspConfig(
            enabled=True,
            **LSP_WAITS,
            servers={"ruff": LspServerConfig(command=[RUFF, "server"], languages=["python"])},
        ),
    )

    async def go():
        agent = await Agent.create(cwd=root, config=config, model=model)
        try:
            return [ev async for ev in agent.run_turn("edit")]
        finally:
            await agent.close()

    ends = {ev.tool_id: ev for ev in asyncio.run(go()) if ev.type.value == "tool_end"}
    assert ends["e1"].data["diagnostics"] == ["s.py:1:5 error F821 Undefined name `nope`"]
    assert "diagnostics" not in ends["e2"].data  # the same step, the same error: said once
    (line,) = ends["e3"].data["diagnostics"]  # the next step says it again
    assert line.endswith("error F821 Undefined name `nope`")
