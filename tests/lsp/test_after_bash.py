"""After a shell command: the files it created or changed that no server had open are found
by the session's checkpoints (issue 28 item 1) and checked as an edit's are — bounded, and
never through a symlink or into a FIFO."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

from larik.agent.checkpoints import ShadowRepo
from larik.agent.rewind import Checkpointer
from larik.agent.tools import ToolContext, bash
from larik.agent.tools._seen import SeenFiles
from larik.config.tables import LspConfig, LspServerConfig
from larik.lsp.client import Server
from larik.lsp.session import MAX_COMMAND_FILES, LspSession
from tests.patience import LSP_WAITS, WAIT

from .test_lsp import HOSTILE, RUFF

RUFF_SERVER = {"ruff": LspServerConfig(command=[RUFF, "server"], languages=["python"])}


def _session(root: Path, checkpoints, trusted: bool = True, **lsp) -> LspSession:
    lsp = {"servers": RUFF_SERVER, **LSP_WAITS, **lsp}
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
        f"within {LSP_WAITS['wait_ms'] // 1000} s)"
    )


def test_a_server_that_never_answers_holds_a_command_at_most_twice_the_wait(tmp_path, monkeypatch):
    """The waits the session asks of the server add up to two of ``wait_ms`` at most (the
    first file's, then one shared by the rest): the bound is what is asked, not a stopwatch."""
    root = _project(tmp_path)
    mute = LspServerConfig(command=[sys.executable, str(HOSTILE), "mute"], languages=["python"])
    n = 20
    asked: list[float] = []
    real_wait = Server.wait

    async def wait(self, path, before, seconds):
        asked.append(seconds)
        return await real_wait(self, path, before, seconds)

    monkeypatch.setattr(Server, "wait", wait)

    async def go():
        cp = await _turn(tmp_path, root)
        s = _session(root, cp, servers={"fake": mute}, wait_ms=400)
        try:
            await s.after_write(root / "warm.py", "", "", "warm.py")  # started: a warm server
            asked.clear()
            return await _bash(s, root, f"for i in $(seq {n}); do echo 'x = 1' > f$i.py; done")
        finally:
            await s.close()

    out = asyncio.run(go())
    m = re.search(r"lsp: (\d+) more changed files not checked", out.content)
    assert m and n - 2 <= int(m.group(1)) < n  # the first one or two waited, the rest not
    assert asked and asked[0] == 0.4 and sum(asked) <= 2 * 0.4  # at most two waits of 0.4 s


def test_a_symlink_out_of_the_project_or_a_fifo_is_never_read(tmp_path):
    root = _project(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.py").write_text("SECRET_TOKEN = undefined_SECRET_value\n")

    async def go():
        cp = await _turn(tmp_path, root)
        s = _session(root, cp)
        try:
            out = await _bash(
                s,
                root,
                f"ln -s {outside / 'secret.py'} leak.py && ln -s {outside} linked "
                "&& mkfifo pipe.py && printf 'y = nope\\n' > real.py",
            )
            opened = [str(p) for server in s.servers.values() for p, _ in server.open_files()]
            return out, opened
        finally:
            await s.close()

    with _fifo_freed_at_the_ceiling(root / "pipe.py") as freed:
        out, opened = asyncio.run(go())
    assert not freed, "the FIFO was opened for reading (it blocked until the test freed it)"
    assert out.data["diagnostics"] == ["real.py:1:5 error F821 Undefined name `nope`"]
    assert "SECRET" not in out.content
    assert opened == [str(root / "real.py")]  # neither the link, the linked folder nor the FIFO


@contextmanager
def _fifo_freed_at_the_ceiling(fifo: Path) -> Iterator[list[bool]]:
    """Yields a list that gets True if a reader was still blocked on ``fifo`` after the
    suite's ceiling (a writer is opened for it then, so the test ends and fails, not hangs)."""
    freed: list[bool] = []
    done = threading.Event()

    def free() -> None:
        if done.wait(WAIT):
            return
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # fails unless a reader waits
        except OSError:
            return
        freed.append(True)
        os.close(fd)

    watchdog = threading.Thread(target=free, daemon=True)
    watchdog.start()
    try:
        yield freed
    finally:
        done.set()
        watchdog.join()


def test_the_agent_checks_a_file_its_command_wrote_through_its_own_checkpoints(tmp_path):
    from larik.agent import Agent
    from larik.config import Config
    from larik.config.tables import PermissionsConfig

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
        lsp=LspConfig(enabled=True, **LSP_WAITS, servers=RUFF_SERVER),
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
