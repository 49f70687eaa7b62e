"""How ``larik``'s command line is read (larik/command_line.py): subcommands registered lazily
from a table, their summaries whole, a bare prompt, larik's options before or after a command."""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.main import get_group
from typer.testing import CliRunner

from larik import commands, interactive
from larik.cli import app
from larik.command_line import COMMANDS, TYPER_SETTINGS
from tests.patience import WAIT

ROOT = Path(__file__).resolve().parents[1]


def _registered(module: str) -> dict[str, Any]:
    holder = typer.Typer(**TYPER_SETTINGS)
    importlib.import_module(f"larik.commands.{module}").register(holder)
    return dict(get_group(holder).commands)


def _larik(*argv: str, cwd: Path, columns: int = 80) -> subprocess.CompletedProcess[str]:
    env = {"PYTHONPATH": str(ROOT), "COLUMNS": str(columns), "PATH": "/usr/bin:/bin"}
    for var in ("LARIK_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "CLAUDE_CONFIG_DIR"):
        env[var] = os.environ[var]
    return subprocess.run(
        [sys.executable, "-m", "larik._entry", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        env=env,
        timeout=WAIT,
    )


# -- the table ------------------------------------------------------------------------------


def test_every_command_module_has_its_rows_and_each_row_says_what_its_command_says():
    modules = {i.name for i in pkgutil.iter_modules(commands.__path__)}
    assert {e.module for e in COMMANDS.values()} == modules
    for module in modules:
        registered = _registered(module)
        rows = {name for name, e in COMMANDS.items() if e.module == module}
        assert set(registered) == rows, module
        for name in rows:
            assert registered[name].get_short_help_str(10_000) == COMMANDS[name].summary, name


def test_larik_help_imports_none_of_the_commands_modules():
    probe = (
        "import sys\nsys.argv = ['larik', '--help']\nfrom larik import cli\n"
        "try:\n    cli.main()\nexcept SystemExit:\n    pass\n"
        "print('LOADED:' + ','.join(m for m in sys.modules if m.startswith('larik.commands.')))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "LOADED:"


@pytest.mark.parametrize("group", [[], ["mcp"]], ids=["larik", "larik mcp"])
def test_help_lists_each_commands_summary_whole_at_80_columns(group, tmp_path):
    """It was cut with "..." to one line (issue 25 item 33)."""
    out = _larik(*group, "--help", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    listing = out.stdout.split("Commands:")[1]
    assert "..." not in listing
    words = " ".join(listing.split())
    if group:
        summaries = [
            c.get_short_help_str(10_000) for c in _registered("mcp")["mcp"].commands.values()
        ]
    else:
        summaries = [e.summary for e in COMMANDS.values()]
    for summary in summaries:
        assert " ".join(summary.split()) in words


# -- larik's options before the command -----------------------------------------------------


def _mcp_project(tmp_path: Path) -> Path:
    project = tmp_path / "p"
    project.mkdir()
    (project / ".git").mkdir()
    (project / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": "node"}}}))
    return project


@pytest.mark.parametrize(
    "argv",
    [["--trust-project", "mcp", "list"], ["mcp", "list", "--trust-project"]],
    ids=["before", "after"],
)
def test_trust_project_before_or_after_the_command_is_the_same(argv, tmp_path):
    """``larik --trust-project mcp list`` ignored the flag, then told you to pass it."""
    out = _larik(*argv, cwd=_mcp_project(tmp_path))
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["docs", "stdio", "enabled", "node"]
    assert "untrusted" not in out.stderr


@pytest.mark.parametrize(
    ("argv", "session"),
    [
        (["-r", "first", "undo"], "first"),
        (["-r", "first", "undo", "-r", "second"], "second"),  # the command's own wins
        (["undo"], "latest"),
    ],
)
def test_resume_before_the_command_is_the_commands_own(monkeypatch, argv, session):
    from larik.llm.errors import LarikError

    seen: list[str] = []

    def session_path(cwd: Path, which: str) -> Path:
        seen.append(which)
        raise LarikError("stop here")

    monkeypatch.setattr("larik.agent.session_log.session_path", session_path)
    result = CliRunner().invoke(app, argv)
    assert result.exit_code == 2 and "stop here" in result.output
    assert seen == [session]


@pytest.mark.parametrize(
    ("argv", "option", "where"),
    [
        (["-p", "hi", "mcp", "list"], "--print", "larik mcp list"),
        (["--verbose", "bench", "--list"], "--verbose", "larik bench"),
        (["-m", "x", "routing"], "--model", "larik routing"),
    ],
)
def test_an_option_of_larik_that_the_command_does_not_take_is_refused_not_ignored(
    argv, option, where, tmp_path
):
    out = _larik(*argv, cwd=tmp_path)
    assert out.returncode == 2
    assert f"{option} is an option of larik itself (the TUI and print mode), not of `{where}`" in (
        out.stderr
    )


# -- a bare prompt ---------------------------------------------------------------------------


def _started(monkeypatch, argv: list[str]) -> tuple[int, dict[str, Any], str]:
    seen: dict[str, Any] = {}

    def fake(cwd, model="", effort=None, permission_mode=None, session=None, **kw):
        seen.update(model=model, session=session, **kw)
        return 0

    monkeypatch.setattr(interactive, "run_interactive", fake)
    result = CliRunner().invoke(app, argv)
    return result.exit_code, seen, result.output


@pytest.mark.parametrize(
    ("argv", "prompt", "model"),
    [
        (["fix the failing test"], "fix the failing test", ""),
        (["fix", "the", "failing", "test"], "fix the failing test", ""),
        (["-m", "x", "fix it"], "fix it", "x"),
        (["fix it", "-m", "x"], "fix it", "x"),  # options after the prompt are larik's still
        (["--", "bench"], "bench", ""),
        (["-m", "x", "--", "mcp", "list", "-m", "y"], "mcp list -m y", "x"),
        (["hello"], "hello", ""),
    ],
)
def test_a_bare_prompt_starts_the_tui_with_it(monkeypatch, argv, prompt, model):
    """``larik "fix the failing test"`` was "No such command" (issue 25 item 8)."""
    code, seen, output = _started(monkeypatch, argv)
    assert code == 0, output
    assert seen["prompt"] == prompt and seen["model"] == model


def test_without_a_prompt_the_tui_starts_with_none(monkeypatch):
    code, seen, _ = _started(monkeypatch, ["-c"])
    assert code == 0 and seen["prompt"] == "" and seen["session"] == "latest"


def test_a_commands_name_is_the_command_and_a_near_miss_is_refused_with_the_escape(monkeypatch):
    code, seen, output = _started(monkeypatch, ["bnch"])
    assert code == 2 and not seen
    assert "No such command 'bnch'. Did you mean 'bench'?" in output
    assert "larik -- bnch" in output
    result = CliRunner().invoke(app, ["bench", "--list"])
    assert result.exit_code == 0 and "add-option" in result.output.replace("_", "-")


def test_a_bare_prompt_and_print_mode_do_not_go_together(monkeypatch):
    code, seen, output = _started(monkeypatch, ["-p", "one", "two"])
    assert code == 2 and not seen
    assert "a bare prompt ('two') and -p PROMPT do not go together" in output


def test_a_bare_prompt_without_a_terminal_says_the_tui_needs_one(tmp_path):
    """Through the console script, as a user types it: the TUI's own refusal, not a usage
    error (``No such command 'fix the failing test'`` before)."""
    out = _larik("fix the failing test", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.strip() == interactive.NO_TERMINAL
