"""What one session's sandboxed commands share (issue 25 item 1): a background job's dev server
is reachable from the next command over the session's own loopback, and a file one command
writes to ``/tmp`` is there for the next — while the network stays off, the host's loopback
and ``/tmp`` stay out of reach, and another session shares none of it. Where the loopback
cannot be shared, the job's result says why and what to set.

Real bwrap, real processes, a session made by ``Agent.create`` (so its sandbox is the one the
TUI and print mode get) and closed by ``Agent.close``."""

from __future__ import annotations

import asyncio
import os
import socket
import sys
from pathlib import Path

import pytest

from larik import host_programs
from larik.agent.tools import ToolContext
from larik.agent.tools import bash as bash_tool
from larik.config import Config
from tests.patience import WAIT

from .conftest import Roles, script

pytestmark = pytest.mark.usefixtures("needs_bwrap")

PY = os.path.realpath(sys.executable)  # the interpreter itself (a venv under /tmp is hidden)

# a dev server: listens on a free loopback port, says which in /tmp/port, answers "hello"
SERVER = """\
import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
with open("/tmp/port.tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
import os
os.rename("/tmp/port.tmp", "/tmp/port")
print("listening", flush=True)
while True:
    c, _ = s.accept()
    c.sendall(b"hello from the job")
    c.close()
"""
# the next command: reads the port from /tmp, connects, prints what it got
CLIENT = """\
import socket, sys, time
port = int(open("/tmp/port").read())
c = socket.create_connection(("127.0.0.1", port), 3)
print(c.recv(100).decode())
"""
# a connection to a port given on the command line (the host's listener)
KNOCK = "import socket,sys; socket.create_connection(('127.0.0.1', int(sys.argv[1])), 3); print('got' + ' through')"


async def _session(project: Path, config: Config | None = None):
    from larik.agent.agent import Agent

    return await Agent.create(
        cwd=project, config=config or Config(), resolver=Roles(script()), permission_mode="yolo"
    )


async def _bash(agent, command: str, background: bool = False) -> str:
    s = agent._settings
    ctx = ToolContext(root=s.root, sandbox=s.policy.sandbox, jobs=s.jobs)
    args = bash_tool.Args(command=command, background=background)
    return (await bash_tool.run(args, ctx)).content


async def _wait_for(agent, command: str, want: str, seconds: float = WAIT) -> str:
    """Run ``command`` until its output holds ``want`` (the job's server is starting)."""
    deadline = asyncio.get_running_loop().time() + seconds
    out = ""
    while asyncio.get_running_loop().time() < deadline:
        out = await _bash(agent, command)
        if want in out:
            return out
        await asyncio.sleep(0.05)
    return out


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    project.mkdir()
    (project / "server.py").write_text(SERVER)
    (project / "client.py").write_text(CLIENT)
    (project / "knock.py").write_text(KNOCK)
    return project


def test_a_jobs_server_is_reachable_from_the_next_command_and_tmp_is_shared(tmp_path):
    project = _project(tmp_path)
    host = socket.socket()
    host.bind(("127.0.0.1", 0))
    host.listen(4)
    host_port = host.getsockname()[1]

    async def go() -> tuple[str, str, str, str, Path]:
        agent = await _session(project)
        space = agent._settings.policy.sandbox.space
        try:
            started = await _bash(agent, f"{PY} server.py", background=True)
            reply = await _wait_for(agent, f"{PY} client.py", "hello from the job")
            await _bash(agent, "echo kept > /tmp/note.txt")
            note = await _bash(agent, "cat /tmp/note.txt")
            knock = await _bash(agent, f"{PY} knock.py {host_port}")
            tmp = space.tmp()
        finally:
            await agent.close()
        return started, reply, note, knock, tmp

    with host:
        started, reply, note, knock, tmp = asyncio.run(go())
    assert "started background job 1" in started and "do not share" not in started
    assert "hello from the job" in reply  # the job's server, from the next command
    assert note.startswith("kept\n")  # /tmp of one command is the next one's
    # the network is still off: the host's loopback is not the session's
    assert "got through" not in knock and "this may be the sandbox" in knock
    assert "share a private loopback" in knock
    assert not tmp.exists()  # the session's /tmp went with it


def test_another_session_shares_neither_loopback_nor_tmp(tmp_path):
    project = _project(tmp_path)

    async def go() -> tuple[str, str]:
        first, second = await _session(project), await _session(project)
        try:
            await _bash(first, f"{PY} server.py", background=True)
            await _wait_for(first, f"{PY} client.py", "hello from the job")
            first_tmp = first._settings.policy.sandbox.space.tmp()
            port = (first_tmp / "port").read_text()
            theirs = await _bash(second, "cat /tmp/port")
            knock = await _bash(second, f"{PY} knock.py {port}")
        finally:
            await first.close()
            await second.close()
        return theirs, knock

    theirs, knock = asyncio.run(go())
    assert "No such file" in theirs
    assert "got through" not in knock


def test_where_the_loopback_cannot_be_shared_the_job_says_why_and_what_to_set(
    tmp_path, monkeypatch
):
    project = _project(tmp_path)
    real = host_programs.find

    def find(name: str, *roots):
        if name == "nsenter":
            raise host_programs.NotOwn("nsenter is not installed")
        return real(name, *roots)

    monkeypatch.setattr(host_programs, "find", find)

    async def go() -> tuple[str, str]:
        agent = await _session(project)
        try:
            started = await _bash(agent, f"{PY} server.py", background=True)
            await _wait_for(agent, "cat /tmp/port", "[exit code 0]")  # the server is up
            reply = await _wait_for(agent, f"{PY} client.py", "hello", seconds=1)  # (a negative)
        finally:
            await agent.close()
        return started, reply

    started, reply = asyncio.run(go())
    assert "do not share a loopback (nsenter is not installed)" in started
    assert "[sandbox] network = true" in started
    # the next command cannot connect, and its result says why too (/tmp is still shared)
    assert "hello" not in reply and "nsenter is not installed" in reply


def test_with_the_network_on_they_meet_on_the_hosts_loopback(tmp_path):
    project = _project(tmp_path)
    config = Config(sandbox={"network": True})

    async def go() -> str:
        agent = await _session(project, config)
        try:
            await _bash(agent, f"{PY} server.py", background=True)
            return await _wait_for(agent, f"{PY} client.py", "hello from the job")
        finally:
            await agent.close()

    assert "hello from the job" in asyncio.run(go())
