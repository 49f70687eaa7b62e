"""Larik started in ``/``, the home folder or a folder holding it (issue 25 item 12): far wider
than a project — from ``/`` a sandboxed command wrote to the host's ``/var/tmp``. Print mode
refuses without ``--trust-project``; the TUI asks first (tests/tui/test_wide_root.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from larik.paths import wide_root
from tests.patience import WAIT

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("/", "the root of the whole file system"),
        ("home", "your home folder"),
        ("parent", "a folder holding your home folder"),
        ("project", ""),
        ("inside", ""),
    ],
)
def test_what_a_folder_is(tmp_path, where, said):
    home = tmp_path / "users" / "me"
    (home / "code" / "app").mkdir(parents=True)
    folder = {
        "/": Path("/"),
        "home": home,
        "parent": home.parent,
        "project": home / "code" / "app",
        "inside": tmp_path / "elsewhere",
    }[where]
    assert wide_root(folder, home).startswith(said)
    assert bool(wide_root(folder, home)) == bool(said)


def _print_mode(cwd: Path, home: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    script = home.parent / "s.json"
    script.write_text(json.dumps({"turns": [{"text": "done"}]}))
    env = {**os.environ, "HOME": str(home), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "larik.cli", "-p", "hi", "-m", f"scripted/{script}", *extra],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=WAIT,
    )


@pytest.mark.parametrize("where", ["/", "home"])
def test_print_mode_refuses_a_folder_wider_than_a_project(tmp_path, where):
    home = tmp_path / "me"
    home.mkdir()
    cwd = Path("/") if where == "/" else home
    out = _print_mode(cwd, home)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"larik: {cwd} is ")
    assert "Start Larik in a project's folder (or pass --trust-project" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_print_mode_works_there_with_trust_project(tmp_path):
    home = tmp_path / "me"
    home.mkdir()
    out = _print_mode(home, home, "--trust-project")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "done\n"


def test_print_mode_works_in_a_project_inside_the_home_folder(tmp_path):
    home = tmp_path / "me"
    (home / "app").mkdir(parents=True)
    out = _print_mode(home / "app", home)
    assert out.returncode == 0, out.stderr
