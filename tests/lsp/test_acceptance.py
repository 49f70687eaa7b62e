"""Issue 28's acceptance items that no other test in tests/lsp holds: ``[lsp] enabled = false``
turns it all off, ``disabled`` leaves a known server out, a hung server goes with its children,
nothing starts before the first edit, and a fix of a pre-existing type error says nothing."""

from __future__ import annotations

import asyncio
import os
import sys
import tomllib
from types import SimpleNamespace

from larik.config import Config
from larik.config.tables import LspConfig, LspServerConfig
from larik.lsp import servers
from larik.lsp.session import LspSession
from tests.patience import LSP_WAITS, WAIT, grown_until
from tests.procs import gone

from .test_lsp import HOSTILE, RUFF, _basedpyright, _session

RUFF_SERVER = {"ruff": LspServerConfig(command=[RUFF, "server"], languages=["python"])}


def _trusted(config: Config) -> SimpleNamespace:
    return SimpleNamespace(lsp=config.lsp, folder_trusted=True)


def test_lsp_enabled_false_starts_nothing_appends_nothing_and_snapshots_nothing(tmp_path):
    from larik.agent.tools import ToolContext, bash
    from larik.agent.tools._seen import SeenFiles

    raw = tomllib.loads(
        f'[lsp]\nenabled = false\n[lsp.servers.ruff]\ncommand = ["{RUFF}", "server"]\n'
        'languages = ["python"]\n'
    )
    config = Config(**raw)
    asked = []

    class Counting:
        async def changes(self, want, most):
            asked.append(most)
            return None

    async def go():
        s = LspSession(_trusted(config), tmp_path, checkpoints=Counting())
        try:
            edit = await s.after_write(tmp_path / "a.py", "", "x = nope\n", "a.py")
            ctx = ToolContext(root=tmp_path, seen=SeenFiles(), lsp=s)
            cmd = await bash.run(bash.Args(command="printf 'y = nope\\n' > b.py"), ctx)
            return edit, cmd, dict(s.servers), s.status()["off"]
        finally:
            await s.close()

    edit, cmd, running, off = asyncio.run(go())
    assert config.lsp.enabled is False
    assert edit == "" and "diagnostics" not in cmd.data and cmd.content.endswith("[exit code 0]")
    assert running == {} and asked == []
    assert off == "lsp: off ([lsp] enabled = false)"


def test_a_disabled_known_server_leaves_the_next_one_and_a_named_one_replaces_it():
    cfg = SimpleNamespace(lsp=LspConfig(disabled=["basedpyright", "pyright"]))
    python = [s.name for s in servers.specs(cfg) if "python" in s.languages]
    assert python == ["ty", "ruff", "pylsp"]
    mine = LspServerConfig(command=["/opt/ruff", "server"], languages=["python"])
    cfg = SimpleNamespace(lsp=LspConfig(servers={"ruff": mine}))
    got = [s for s in servers.specs(cfg) if s.name == "ruff"]
    assert len(got) == 1 and got[0].command == ("/opt/ruff", "server")  # tried first, once


def test_a_server_that_hangs_on_initialize_is_killed_with_its_children(tmp_path):
    pidfile = tmp_path / "child.pid"
    fake = LspServerConfig(
        command=[sys.executable, str(HOSTILE), "hang-child", str(pidfile)], languages=["python"]
    )

    async def go(start_ms: int):
        s = _session(tmp_path, servers={"fake": fake}, wait_ms=500, start_ms=start_ms)
        try:
            out = await asyncio.wait_for(
                s.after_write(tmp_path / "a.py", "", "x = 1\n", "a.py"), WAIT
            )  # the write goes on: its start was given up on
            if not pidfile.exists():
                return None  # given up before it started its child: a longer bound
            server = s.servers["python"]._proc.pid
            child = int(pidfile.read_text())
            await gone(server)  # the kill is sent; the group goes as the kernel reaps it
            await gone(child)
            return out, start_ms, _alive(server), _alive(child)
        finally:
            await s.close()

    out, start_ms, server_alive, child_alive = grown_until(
        lambda ms: asyncio.run(go(int(ms))), 1500, LSP_WAITS["start_ms"]
    )
    assert f"did not start within {start_ms / 1000:g} s" in out  # its bound gave it up
    assert not server_alive and not child_alive


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) is not running
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_no_server_starts_before_the_first_edit_of_a_session(tmp_path):
    from larik.agent import Agent
    from larik.config.tables import PermissionsConfig

    from ..test_printmode import write_script

    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("x = nope\n")
    model = write_script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "read_file", "input": {"path": "a.py"}, "id": "r"}]},
        {"tool_calls": [{"name": "bash", "input": {"command": "cat a.py"}, "id": "b"}]},
        {"text": "Read it."},
    )
    config = Config(
        permissions=PermissionsConfig(mode="yolo"),
        lsp=LspConfig(enabled=True, servers=RUFF_SERVER),
    )

    async def go():
        agent = await Agent.create(cwd=root, config=config, model=model)
        try:
            at_start = dict(agent.lsp.servers)
            [ev async for ev in agent.run_turn("look")]
            return at_start, dict(agent.lsp.servers)
        finally:
            await agent.close()

    at_start, after_reading = asyncio.run(go())
    assert at_start == {} and after_reading == {}  # read and a command that changed nothing


def test_basedpyright_says_nothing_of_an_edit_that_fixes_a_pre_existing_type_error(tmp_path):
    pre = "def f(x: int) -> int:\n    return x\n\n\nbad: str = f(1)\nok = f(2)\n"

    async def go():
        s = _session(tmp_path, **LSP_WAITS, servers=_basedpyright())
        p = tmp_path / "t.py"
        p.write_text(pre)
        try:
            s.new_step()
            fixed = await s.after_write(p, pre, pre.replace("bad: str", "bad: int"), "t.py")
            s.new_step()
            broke = await s.after_write(
                p, pre.replace("bad: str", "bad: int"), pre.replace("f(2)", "f(2).nope"), "t.py"
            )
            return fixed, broke, s.notices
        finally:
            await s.close()

    fixed, broke, notices = asyncio.run(go())
    assert notices == [] and fixed == ""
    # the fixed error is back, and the new one: both are new against the fixed text
    assert sorted(x.split()[2] for x in broke.splitlines()[1:]) == [
        "reportAssignmentType",
        "reportAttributeAccessIssue",
    ]
