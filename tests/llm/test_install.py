"""The command that adds an extra to this installation of Larik, found from the installation
itself (larik/llm/install.py): where it came from (the distribution's ``direct_url.json``,
PEP 610) and which tool made its environment (the interpreter's prefix). Each kind below is a
temporary dist-info and a temporary prefix, read by the real function — no ``pip install
'larik[local]'`` for a Larik that no index has."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from larik.llm.install import extra_command, installation

CHECKOUT = "/home/me/src/larik"
GIT = "https://github.com/someone/larik.git"

# (direct_url.json or None for an index, what makes the prefix, active?) -> the command
KINDS: dict[str, tuple[dict | None, str, bool, str]] = {
    "an editable checkout in the active virtualenv": (
        {"url": f"file://{CHECKOUT}", "dir_info": {"editable": True}},
        "venv",
        True,
        f"pip install -e '{CHECKOUT}[local]'",
    ),
    "an editable checkout in a virtualenv that is not active": (
        {"url": f"file://{CHECKOUT}", "dir_info": {"editable": True}},
        "venv",
        False,
        f"{{python}} -m pip install -e '{CHECKOUT}[local]'",
    ),
    "an editable checkout in a uv virtualenv without pip": (
        {"url": f"file://{CHECKOUT}", "dir_info": {"editable": True}},
        "uv-venv",
        True,
        f"uv pip install --python {{python}} -e '{CHECKOUT}[local]'",
    ),
    "a git URL as a uv tool": (
        {"url": GIT, "vcs_info": {"vcs": "git", "commit_id": "0123abc"}},
        "uv-tool",
        False,
        f"uv tool install --force 'larik[local] @ git+{GIT}@0123abc'",
    ),
    "a git URL at a branch with pipx": (
        {
            "url": GIT,
            "vcs_info": {"vcs": "git", "requested_revision": "main", "commit_id": "0123abc"},
        },
        "pipx",
        False,
        f"pipx install --force 'larik[local] @ git+{GIT}@main'",
    ),
    "an editable checkout as a uv tool": (
        {"url": f"file://{CHECKOUT}", "dir_info": {"editable": True}},
        "uv-tool",
        False,
        f"uv tool install --force --editable '{CHECKOUT}[local]'",
    ),
    "a folder (not editable) with pipx": (
        {"url": "file:///opt/larik%20src", "dir_info": {}},
        "pipx",
        False,
        "pipx install --force '/opt/larik src[local]'",
    ),
    "a wheel's URL": (
        {"url": "https://example.org/larik-0.1.0-py3-none-any.whl", "archive_info": {}},
        "venv",
        True,
        "pip install 'larik[local] @ https://example.org/larik-0.1.0-py3-none-any.whl'",
    ),
    "an index, with pip": (None, "venv", True, "pip install 'larik[local]'"),
}


def _dist_info(site: Path, direct_url: dict | None) -> None:
    info = site / "larik-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: larik\nVersion: 0.1.0\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))


def _prefix(root: Path, kind: str) -> Path:
    prefix = root / "env"
    site = prefix / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    if kind == "uv-tool":
        (prefix / "uv-receipt.toml").write_text('[tool]\nrequirements = [{ name = "larik" }]\n')
    elif kind == "pipx":
        (prefix / "pipx_metadata.json").write_text('{"pipx_metadata_version": "0.5"}')
    elif kind == "uv-venv":
        (prefix / "pyvenv.cfg").write_text("home = /usr/bin\nuv = 0.9.0\nversion_info = 3.12\n")
    else:
        (prefix / "pyvenv.cfg").write_text("home = /usr/bin\nversion = 3.12.3\n")
        (site / "pip").mkdir()
    return prefix


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_command_is_the_one_for_how_larik_was_installed(kind, tmp_path):
    direct_url, made_by, active, want = KINDS[kind]
    prefix = _prefix(tmp_path, made_by)
    site = tmp_path / "site"
    _dist_info(site, direct_url)
    python = str(prefix / "bin" / "python")  # a path with no character a shell would take
    environ = {"VIRTUAL_ENV": str(prefix)} if active else {}
    found = installation([str(site)], prefix=prefix, executable=python, environ=environ)
    assert found.command("local") == want.format(python=python)


def test_the_larik_that_runs_here_names_its_own_checkout():
    """The suite runs Larik from this checkout (an editable install, or PYTHONPATH)."""
    checkout = Path(__file__).resolve().parents[2]
    command = extra_command("local")
    assert f"{checkout}[local]" in command and "-e " in command, command


def test_no_message_names_an_extra_but_through_the_one_function():
    """Every place that says how to install an extra says this installation's command."""
    package = Path(__file__).resolve().parents[2] / "larik"
    offenders = [
        str(p.relative_to(package.parent))
        for p in package.rglob("*.py")
        if "larik[" in p.read_text(encoding="utf-8") and p.name != "install.py"
    ]
    assert offenders == []


def test_the_running_interpreters_prefix_is_read_by_default():
    assert installation().python in ("", sys.executable)
