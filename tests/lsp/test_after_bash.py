"""After a shell command: the files it created or changed that no server had open are found
by the session's checkpoints (issue 28 item 1) and checked as an edit's are — bounded, and
never through a symlink or into a FIFO."""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path
from types import SimpleNamespace

from larik.agent.checkpoints import ShadowRepo
from larik.agent.rewind import Checkpointer
from larik.agent.tools import ToolContext, bash
from larik.agent.tools._seen import SeenFiles
from larik.config.schema import LspConfig, LspServerConfig
from larik.lsp.session import MAX_COMMAND_FILES, LspSession

from .test_lsp import HOSTILE, RUFF

RUFF_SERVER = {"ruff": LspServerConfig(command=[RUFF, "server"], languages=["python"])}


def _session(root: Path, checkpoints, trusted: bool = True, **lsp) -> LspSession:
    lsp.setdefault("servers", RUFF_SERVER)
    lsp.setdefault("wait_ms", 10_000)
    lsp.setdefault("start_ms", 30_000)
    cfg = SimpleNamespace(lsp=LspConfig(**lsp), folder_trusted=trusted)
    return LspSession(cfg, root, checkpoints=checkpoints)


async def _turn(tmp_path: Path, root: Path) -> Checkpointer:
    """A turn whose checkpoint is taken, as the tool runner takes it before a command."""
    cp = Checkpointer(root, lambda _rec: None, repo=ShadowRepo(root, tmp_path / "shadow"))
    cp.begin_turn("go")
    await cp.before_change()
    return cp


def _project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


async def _bash(s: LspSession, root: Path, command: str):
    s.new_step()
    ctx = ToolContext(root=root, seen=SeenFiles(), lsp=s)
    return await bash.run(bash.Args(command=command), ctx)


def test_a_command_that_writes_a_broken_python_file_gets_its_error_back(tmp_path):
    root = _project(tmp_path)
    (root / "old.py").write_text("a = missing\n")  # before the turn: its error is not new

    async def go():
        cp = await _turn(tmp_path, root)
        s = _session(root, cp)
        try:
            new = await _bash(s, root, "printf 'x = nope\\n' > new.py")
            grown = await _bash(s, root, "printf 'b = other\\n' >> old.py")
            again = await _bash(s, root, "true")  # nothing changed since: nothing said
            return new, grown, again, s.notices
        finally:
            await s.close()

    new, grown, again, notices = asyncio.run(go())
    assert notices == []
    assert new.data["diagnostics"] == ["new.py:1:5 error F821 Undefined name `nope`"]
    assert new.content.endswith(
        "[exit code 0]\n" + LspSession.HEADING + "\nnew.py:1:5 error F821 Undefined name `nope`"
    )
    assert grown.data["diagnostics"] == ["old.py:2:5 error F821 Undefined name `other`"]
    assert "diagnostics" not in again.data and "language server" not in again.content


def test_a_fake_servers_error_in_a_file_a_command_wrote_comes_back_once_and_a_fix_is_quiet(
    tmp_path,
):
    root = _project(tmp_path)
    pull = LspServerConfig(command=[sys.executable, str(HOSTILE), "pull"], languages=["python"])

    async def go():
        cp = await _turn(tmp_path, root)
        s = _session(root, cp, servers={"fake": pull})
        try:
            broke = await _bash(s, root, "printf 'x = 1\\ny = undefined\\n' > f.py")
            fixed = await _bash(s, root, "printf 'x = 1\\ny = 2\\n' > f.py")
            return broke, fixed
        finally:
            await s.close()

    broke, fixed = asyncio.run(go())
    assert broke.data["diagnostics"] == ["f.py:2:1 error U1 undefined here"]
    assert "diagnostics" not in fixed.data and "language server" not in fixed.content


def test_a_command_that_touches_no_source_says_nothing_and_starts_no_server(tmp_path):
    root = _project(tmp_path)

    async def go():
        cp = await _turn(tmp_path, root)
        s = _session(root, cp)
        try:
            out = await _bash(s, root, "echo hi > notes.txt && mkdir -p d && echo x > d/data.csv")
            return out, dict(s.servers)
        finally:
            await s.close()

    out, servers = asyncio.run(go())
    assert "diagnostics" not in out.data and "lsp" not in out.content
    assert servers == {}  # no .py changed: no server started for it


def test_where_no_server_may_run_a_command_costs_no_snapshot(tmp_path):
    root = _project(tmp_path)
    asked = []

    class Counting:
        async def changes(self, want, most):
            asked.append(most)
            return None

    async def go():
        s = _session(root, Counting(), trusted=False)  # untrusted, [lsp] enabled unset
        try:
            return await _bash(s, root, "printf 'x = nope\\n' > a.py")
        finally:
            await s.close()

    out = asyncio.run(go())
    assert asked == [] and "diagnostics" not in out.data


def test_a_flood_of_changed_files_is_cut_at_the_limit_and_said(tmp_path):
    root = _project(tmp_path)
    n = MAX_COMMAND_FILES + 250

    async def go():
        cp = await _turn(tmp_path, root)
        s = _session(root, cp, max_lines=200)
        try:
            cmd = f"for i in $(seq {n}); do printf 'x = nope\\n' > f$i.py; done"
            return await _bash(s, root, cmd)
        finally:
            await s.close()

    out = asyncio.run(go())
    assert len(out.data["diagnostics"]) == MAX_COMMAND_FILES  # one error in each checked file
    assert out.content.endswith(
        f"lsp: 250 more changed files not checked (at most {MAX_COMMAND_FILES} after a command, "
        "within 10 s)"
    )


def test_a_server_that_never_answers_holds_a_command_at_most_twice_the_wait(tmp_path):
    root = _project(tmp_path)
    mute = LspServerConfig(command=[sys.executable, str(HOSTILE), "mute"], languages=["python"])
    n = 20

    async def go():
        cp = await _turn(tmp_path, root)
        s = _session(root, cp, servers={"fake": mute}, wait_ms=400)
        try:
            await s.after_write(root / "warm.py", "", "", "warm.py")  # started: a warm server
            t = time.monotonic()
            out = await _bash(s, root, f"for i in $(seq {n}); do echo 'x = 1' > f$i.py; done")
            return out, time.monotonic() - t
        finally:
            await s.close()

    out, took = asyncio.run(go())
    m = re.search(r"lsp: (\d+) more changed files not checked", out.content)
    assert m and n - 2 <= int(m.group(1)) < n  # the first one or two waited, the rest not
    assert took < 5.0  # bash's own run plus at most two waits of 0.4 s, on a loaded machine


def test_a_symlink_out_of_the_project_or_a_fifo_is_never_read(tmp_path):
    root = _project(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET_TOKEN = undefined_SECRET_value\n")

    async def go():
        cp = await _turn(tmp_path, root)
        s = _session(root, cp)
        try:
            t = time.monotonic()
            out = await _bash(
                s,
                root,
                f"ln -s {outside / 'secret.py'} leak.py && ln -s {outside} linked "
                "&& mkfifo pipe.py && printf 'y = nope\\n' > real.py",
            )
            opened = [str(p) for server in s.servers.values() for p, _ in server.open_files()]
            return out, opened, time.monotonic() - t
        finally:
            await s.close()

    out, opened, took = asyncio.run(go())
    assert out.data["diagnostics"] == ["real.py:1:5 error F821 Undefined name `nope`"]
    assert "SECRET" not in out.content
    assert opened == [str(root / "real.py")]  # neither the link, the linked folder nor the FIFO
    assert took < 30.0  # a FIFO opened for reading would have blocked until the test's end


def test_the_agent_checks_a_file_its_command_wrote_through_its_own_checkpoints(tmp_path):
    from larik.agent import Agent
    from larik.config import Config
    from larik.config.schema import PermissionsConfig

    from ..test_printmode import write_script

    root = _project(tmp_path)
    cmd = {"command": "printf 'def f():\\n    return nope\\n' > made.py"}
    model = write_script(
        tmp_path / "s.json",
        {"tool_calls": [{"name": "bash", "input": cmd, "id": "b1"}]},
        {"text": "Done."},
    )
    config = Config(
        permissions=PermissionsConfig(mode="yolo"),
        lsp=LspConfig(enabled=True, wait_ms=20_000, start_ms=60_000, servers=RUFF_SERVER),
    )

    async def go():
        agent = await Agent.create(cwd=root, config=config, model=model)
        try:
            return [ev async for ev in agent.run_turn("make it")], agent.checkpoints.enabled
        finally:
            await agent.close()

    events, checkpoints_on = asyncio.run(go())
    (end,) = [ev for ev in events if ev.type.value == "tool_end"]
    assert checkpoints_on
    assert end.data["diagnostics"] == ["made.py:2:12 error F821 Undefined name `nope`"]
