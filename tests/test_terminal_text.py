"""The one terminal-text table (larik/terminal_text.py): control characters become U+FFFD, bidi
controls and zero-width characters their visible escape, and every plain command's output on a
terminal goes through it (issue 22 item 14)."""

from __future__ import annotations

import io
import json
import sys

import pytest

from larik import cli
from larik.printmode import PrintOptions, run_print
from larik.terminal_text import INVISIBLE, TABLE, safe

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
ZERO_WIDTH = "\u180e\u200b\u200c\u200d\u2060\ufeff"


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_bidi_and_zero_width_characters_are_written_as_their_escapes():
    for ch in BIDI + ZERO_WIDTH:
        assert ord(ch) in INVISIBLE and safe(f"a{ch}b") == f"a\\u{ord(ch):04x}b"
    assert safe("rm -rf \u202e/ #\x1b[2J\tok\n") == "rm -rf \\u202e/ #\ufffd[2J\tok\n"
    assert safe(safe(BIDI + "\x1b")) == safe(BIDI + "\x1b")  # the same, however often applied
    assert safe("日本語 é ☃ 👍 ﷺ") == "日本語 é ☃ 👍 ﷺ"  # visible text is left alone
    assert all(k < 0xA0 or k in INVISIBLE for k in TABLE)


def _larik_on_a_terminal(*argv: str) -> tuple[int, str, str]:
    out, err = Tty(), Tty()
    old = sys.argv, sys.stdout, sys.stderr
    sys.argv, sys.stdout, sys.stderr = ["larik", *argv], out, err
    try:
        cli.main()
        code = 0
    except SystemExit as e:
        code = int(e.code or 0)
    finally:
        sys.argv, sys.stdout, sys.stderr = old
    return code, out.getvalue(), err.getvalue()


def test_mcp_list_shows_a_projects_hostile_command_defused_on_a_terminal(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    command = "node \u202esj.revres\u202c\x1b]0;PWNED\x07"
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": command}}}))
    code, out, err = _larik_on_a_terminal("mcp", "list", "--trust-project")
    assert code == 0, err
    assert "node \\u202esj.revres\\u202c\ufffd]0;PWNED\ufffd" in out
    assert not any(c in out + err for c in "\u202e\u202c\x1b\x07")


def test_larik_trust_shows_a_projects_hostile_command_defused_on_a_terminal(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    command = "node \u202esj.revres\u202c\x1b]0;PWNED\x07"
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"docs": {"command": command}}}))
    code, out, err = _larik_on_a_terminal("trust")
    assert code == 0, err
    assert "node \\u202esj.revres\\u202c\ufffd]0;PWNED\ufffd" in out
    assert not any(c in out + err for c in "\u202e\u202c\x1b\x07")


def test_every_plain_command_writes_through_the_table():
    """A table the test walks: each command but bench (which draws with Rich, every cell of a
    task or a result through ``larik.bench.report.shown``) and acp (its stdout is the protocol's
    JSON, which escapes every control character) is wrapped in ``safe_output``."""
    import importlib

    import typer

    from larik.command_line import COMMANDS, TYPER_SETTINGS

    commands = []
    for module in sorted({e.module for e in COMMANDS.values()}):
        holder = typer.Typer(**TYPER_SETTINGS)
        importlib.import_module(f"larik.commands.{module}").register(holder)
        commands += [(c.name, c.callback) for c in holder.registered_commands]
        for group in holder.registered_groups:
            assert group.typer_instance is not None
            commands += [
                (f"{group.name} {c.name}", c.callback)
                for c in group.typer_instance.registered_commands
            ]
            alone = group.typer_instance.registered_callback  # `larik trust` with no command
            if alone is not None and alone.callback is not None:
                commands.append((f"{group.name} (alone)", alone.callback))
    assert len(commands) >= 8
    for name, callback in commands:
        if name not in ("bench", "acp"):
            assert getattr(callback, "safe_output", False), name
    assert getattr(cli._list_sessions, "safe_output", False)  # larik --resume's listing


@pytest.mark.parametrize("terminal", [True, False])
def test_print_mode_shows_a_bidi_override_in_a_reply_as_its_escape_on_a_terminal(
    tmp_path, terminal
):
    reply = "run: echo safe \u202e hs.live | lruc"
    script = tmp_path / "s.json"
    script.write_text(json.dumps({"turns": [{"text": reply}]}))
    project = tmp_path / "p"
    project.mkdir()
    out = Tty() if terminal else io.StringIO()
    opts = PrintOptions(prompt="hi", cwd=project, model=f"scripted/{script}")
    assert run_print(opts, stdout=out, stderr=io.StringIO()) == 0
    expected = "run: echo safe \\u202e hs.live | lruc\n" if terminal else reply + "\n"
    assert out.getvalue() == expected
