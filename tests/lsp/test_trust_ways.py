"""Every way a user trusts a folder turns its language servers on (issue 42, item 11), in a
project whose files ask for nothing else that needs trust — where, before, no trust record
existed and ``--trust-project`` still said "no language server in this untrusted project".
The server is a fake the project ships in ``.venv/bin`` (only a trusted project's own runs),
run by the real ``larik -p``; the refusal names the server for the file's language."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..test_printmode import write_script

HOSTILE = Path(__file__).with_name("hostile_server.py")
WAIT = 120.0
#: the known Python servers a machine may have on PATH: the project's pylsp is the one asked
OTHERS = '["basedpyright", "pyright", "ty", "ruff"]'


def _project(tmp_path: Path) -> Path:
    """A plain Python project (no config of its own) shipping a language server."""
    root = tmp_path / "proj"
    bin_ = root / ".venv" / "bin"
    bin_.mkdir(parents=True)
    server = bin_ / "hostile_server.py"  # in the project: a checkout under /tmp is hidden
    server.write_text(HOSTILE.read_text())  # from the sandbox the project's server runs in
    (bin_ / "pylsp").write_text(f"#!/bin/sh\nexec '{sys.executable}' '{server}' pull\n")
    (bin_ / "pylsp").chmod(0o755)
    return root


def _user_config(extra: str = "") -> None:
    home = Path(os.environ["LARIK_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        extra + f"[lsp]\nwait_ms = 20000\nstart_ms = 60000\ndisabled = {OTHERS}\n"
    )


def _larik(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "larik.cli", *argv],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        timeout=WAIT,
    )


def _write_a_file(tmp_path: Path, root: Path, *flags: str) -> dict:
    """``larik -p`` writing ``a.py`` (an error the fake server reports): its write's tool_end."""
    model = write_script(
        tmp_path / "s.json",
        {
            "tool_calls": [
                {"name": "write_file", "input": {"path": "a.py", "content": "x = undefined\n"}}
            ]
        },
        {"text": "Done."},
    )
    argv = ["-p", "go", "-m", model, "--permission-mode", "edits", *flags]
    proc = _larik(root, *argv, "--output-format", "stream-json")
    assert proc.returncode == 0, proc.stderr
    events = [json.loads(line) for line in proc.stdout.splitlines()]
    return next(e for e in events if e["type"] == "tool_end" and e["tool_name"] == "write_file")


@pytest.mark.parametrize(
    "way", ["--trust-project", "trusted_projects", "larik trust yes --in-config"]
)
def test_each_way_of_trusting_a_plain_folder_runs_its_language_server(tmp_path, way):
    root = _project(tmp_path)
    flags: list[str] = []
    if way == "--trust-project":
        _user_config()
        flags = ["--trust-project"]
    elif way == "trusted_projects":
        _user_config(f"trusted_projects = [{str(root)!r}]\n")
    else:
        _user_config()
        said = _larik(root, "trust", "yes", "--in-config")
        assert said.returncode == 0, said.stderr
    end = _write_a_file(tmp_path, root, *flags)
    assert "untrusted" not in end["text"]
    assert any("undefined" in line for line in end["data"].get("diagnostics", [])), end["text"]


def test_an_untrusted_plain_folder_says_which_server_would_run_for_the_file(tmp_path, monkeypatch):
    root = _project(tmp_path)
    _user_config()
    # a server of another language on PATH: not the one the refusal names for a .py
    other = tmp_path / "bin"
    other.mkdir()
    (other / "rust-analyzer").write_text("#!/bin/sh\nexit 1\n")
    (other / "rust-analyzer").chmod(0o755)
    monkeypatch.setenv("PATH", f"{other}{os.pathsep}{os.environ['PATH']}")
    end = _write_a_file(tmp_path, root)
    assert "no language server in this untrusted project" in end["text"]
    assert f"its own {root / '.venv' / 'bin' / 'pylsp'}" in end["text"]
    assert "rust-analyzer" not in end["text"] and "diagnostics" not in end["data"]


def test_a_remembered_yes_trusts_the_folder_for_the_tui_and_acp_not_for_scripts(tmp_path):
    """``larik trust yes`` (the TUI's and ACP's "Trust" answer, ``/trust yes``) records the
    folder's trust; the TUI and ACP load the config with the remembered answers, print mode
    and bench without (a script trusts by flag or by the user's config)."""
    from larik.config import load_config

    root = _project(tmp_path)
    _user_config()
    assert not load_config(root, remembered=True).folder_trusted
    said = _larik(root, "trust", "yes")
    assert said.returncode == 0, said.stderr
    assert load_config(root, remembered=True).folder_trusted
    assert not load_config(root).folder_trusted
    said = _larik(root, "trust", "no")
    assert said.returncode == 0 and not load_config(root, remembered=True).folder_trusted
