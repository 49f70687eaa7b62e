"""The file tools against a hostile project: links out of it, deny rules, FIFOs and other special
files, catastrophic patterns, file names and contents that are not UTF-8.

Every file here is real (``os.mkfifo``, ``os.symlink``, ``os.fsencode`` names) in ``tmp_path``.
A test that could block on a FIFO in the old code arms a *rescuer*: a thread that writes to the
FIFO as soon as someone opens it for reading, so the old code fails instead of hanging — and the
rescuer also tells whether the FIFO was opened at all.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import stat
import subprocess
import threading
import time
from pathlib import Path

import pytest

from larik.agent.tools import ToolContext, ToolError, ToolResult, get_tool
from larik.agent.tools import grep as grep_tool
from larik.agent.transcript import load_transcript
from larik.config import Config, PermissionsConfig
from tests.patience import WAIT, grown_until_async, until
from tests.procs import gone

from .conftest import E, of, run, script, valid_conversation

RG = shutil.which("rg")
ENGINES = ["python", pytest.param("rg", marks=pytest.mark.skipif(not RG, reason="no ripgrep"))]


def ctx(root: Path, denied=None) -> ToolContext:
    return ToolContext(root=root, path_denied=denied) if denied else ToolContext(root=root)


async def call(root: Path, name: str, *, context: ToolContext | None = None, **args):
    tool = get_tool(name)
    return await asyncio.wait_for(
        tool.run(tool.args.model_validate(args), context or ctx(root)), timeout=WAIT
    )


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch) -> str:
    """Run a grep test on each engine: the Python search, and ripgrep when it is installed."""
    if request.param == "python":
        monkeypatch.setattr(grep_tool, "ripgrep", lambda root=None: None)
    else:
        monkeypatch.setattr(grep_tool, "ripgrep", lambda root=None: RG)
    return request.param


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder next to the project with a secret in it."""
    out = tmp_path / "outside"
    (out / "dir").mkdir(parents=True)
    (out / "secret").write_text("TOKEN=outside-secret\n")
    (out / "dir" / "more").write_text("TOKEN=outside-dir-secret\n")
    return out


class Rescuer:
    """Writes to a FIFO whenever a reader has it open (so a blocked reader returns); records
    that it was opened."""

    def __init__(self, fifo: Path) -> None:
        self.fifo = fifo
        self.opened = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            try:
                fd = os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: nobody is reading
                continue
            self.opened = True
            time.sleep(2)  # a reader that blocked has blocked for a while
            try:
                os.write(fd, b"TOKEN=through-the-fifo\n")
            except OSError:
                pass
            os.close(fd)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


@pytest.fixture
def fifo(project: Path):
    made: list[Rescuer] = []

    def make(rel: str) -> Path:
        p = project / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(p)
        made.append(Rescuer(p))
        return p

    make.rescuers = made  # type: ignore[attr-defined]
    yield make
    for r in made:
        r.stop()


def git(project: Path) -> None:
    subprocess.run(["git", "init", "-q", str(project)], check=True)


# -- leaving the project -----------------------------------------------------------------------
@pytest.mark.parametrize("in_git", [False, True])
async def test_grep_does_not_search_a_symlink_or_linked_folder_that_leads_outside(
    project, outside, engine, in_git
):
    os.symlink(outside / "secret", project / "leak.txt")
    os.symlink(outside / "dir", project / "linked")
    os.symlink("loop-b", project / "loop-a")  # a loop and a dangling link are skipped quietly
    os.symlink("loop-a", project / "loop-b")
    os.symlink("gone", project / "dangling")
    (project / "own.txt").write_text("TOKEN=own\n")
    if in_git:
        git(project)
    out = await call(project, "grep", pattern="TOKEN")
    assert out.content == "own.txt:1:TOKEN=own"
    out = await call(project, "grep", pattern="secret", glob="*")
    assert out.content.startswith("no matches")


async def test_grep_searches_a_symlink_that_stays_inside_the_project(project, monkeypatch):
    monkeypatch.setattr(grep_tool, "ripgrep", lambda root=None: None)
    (project / "real.txt").write_text("TOKEN=inside\n")
    os.symlink("real.txt", project / "alias.txt")
    out = await call(project, "grep", pattern="TOKEN")
    assert out.content.splitlines() == ["alias.txt:1:TOKEN=inside", "real.txt:1:TOKEN=inside"]


async def test_glob_does_not_list_links_that_lead_outside(project, outside):
    os.symlink(outside / "secret", project / "leak.txt")
    (project / "own.txt").write_text("")
    out = await call(project, "glob", pattern="*.txt")
    assert out.content == "own.txt"


async def test_dotdot_in_paths_and_globs_stays_in_the_project(make_agent, project, outside, engine):
    calls = [
        {"name": "grep", "input": {"pattern": "TOKEN", "path": "../outside"}},
        {"name": "grep", "input": {"pattern": "TOKEN", "path": "linked"}},
        {"name": "grep", "input": {"pattern": "TOKEN", "path": "leak.txt"}},
        {"name": "grep", "input": {"pattern": "TOKEN", "path": "sub/../../outside/secret"}},
        {"name": "grep", "input": {"pattern": "TOKEN", "glob": "../outside/*"}},
        {"name": "grep", "input": {"pattern": "TOKEN", "glob": str(outside / "*")}},
        {"name": "glob", "input": {"pattern": "../outside/*"}},
        {"name": "glob", "input": {"pattern": "**/../../outside/*"}},
        {"name": "glob", "input": {"pattern": "*", "path": "../outside"}},
    ]
    os.symlink(outside / "dir", project / "linked")
    os.symlink(outside / "secret", project / "leak.txt")
    agent = await make_agent(script({"tool_calls": calls}, {"text": "done"}), permission_mode="ask")
    await run(agent)
    results = agent.messages[2].blocks
    assert len(results) == len(calls)
    for r in results:
        assert "TOKEN=outside" not in r.content, r.content
        assert not r.content.startswith(("outside", "../", "/")), r.content
    for r in results[:4] + results[-1:]:
        assert r.is_error and "outside the project root" in r.content


# -- deny rules --------------------------------------------------------------------------------
def deny_config(*rules: str) -> Config:
    return Config(permissions=PermissionsConfig(mode="yolo", deny=list(rules)))


@pytest.mark.parametrize("in_git", [False, True])
async def test_grep_and_glob_honour_deny_rules(make_agent, project, engine, in_git):
    (project / ".env").write_text("API_KEY=env-secret\n")
    (project / "secrets").mkdir()
    (project / "secrets" / "prod.txt").write_text("API_KEY=prod-secret\n")
    os.symlink(".env", project / "innocent.txt")  # the link leads to a denied file
    (project / "app.py").write_text("API_KEY = read_key()\n")
    if in_git:
        git(project)
    calls = [
        {"name": "grep", "input": {"pattern": "API_KEY"}},
        {"name": "grep", "input": {"pattern": "secret", "path": "secrets"}},
        {"name": "grep", "input": {"pattern": "API_KEY", "glob": "*.env"}},
        {"name": "glob", "input": {"pattern": "**/*"}},
        {"name": "glob", "input": {"pattern": ".env"}},
    ]
    agent = await make_agent(
        script({"tool_calls": calls}, {"text": "done"}),
        config=deny_config("*: .env", "*: secrets/*"),
    )
    await run(agent)
    results = [b.content for b in agent.messages[2].blocks]
    for text in results:
        assert "env-secret" not in text and "prod-secret" not in text, text
        for line in text.splitlines():
            assert not line.startswith((".env", "secrets/", "innocent.txt")), text
    assert "app.py:1:" in results[0]
    assert "app.py" in results[3] and "innocent.txt" not in results[3]


async def test_tool_context_deny_check_is_used_directly(project):
    (project / "key.pem").write_text("-----BEGIN KEY-----\n")
    seen: list[tuple[str, Path]] = []

    def denied(tool: str, path: Path) -> bool:
        seen.append((tool, path))
        return path.name == "key.pem"

    context = ctx(project, denied)
    out = await call(project, "grep", pattern="BEGIN", context=context)
    assert out.content.startswith("no matches")
    assert ("grep", project.resolve() / "key.pem") in seen
    listed = await call(project, "glob", pattern="*", context=context)
    assert listed.content == "calc.py"


# -- FIFOs and other special files -------------------------------------------------------------
async def test_read_file_refuses_a_fifo_without_opening_it(project, fifo):
    pipe = fifo("pipe")
    with pytest.raises(ToolError, match="named pipe"):
        await call(project, "read_file", path="pipe")
    assert not fifo.rescuers[0].opened
    os.symlink("pipe", project / "to-pipe")
    with pytest.raises(ToolError, match="named pipe"):
        await call(project, "read_file", path="to-pipe")
    assert not fifo.rescuers[0].opened and stat.S_ISFIFO(os.stat(pipe).st_mode)


async def test_read_file_refuses_sockets_devices_and_proc_files(project, monkeypatch):
    monkeypatch.chdir(project)  # a unix socket path must be short
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind("s.sock")
        with pytest.raises(ToolError, match="socket"):
            await call(project, "read_file", path="s.sock")
    finally:
        sock.close()
    with pytest.raises(ToolError, match="character device"):
        await call(project, "read_file", path="/dev/zero")
    if Path("/proc/self/environ").exists():
        with pytest.raises(ToolError, match="/proc"):
            await call(project, "read_file", path="/proc/self/environ")


async def test_grep_skips_a_fifo_in_the_folder_and_refuses_one_named(project, fifo, engine):
    fifo("sub/pipe")
    (project / "sub" / "real.txt").write_text("TOKEN=real\n")
    out = await call(project, "grep", pattern="TOKEN", path="sub")
    assert out.content == "sub/real.txt:1:TOKEN=real"
    with pytest.raises(ToolError, match="named pipe"):
        await call(project, "grep", pattern="TOKEN", path="sub/pipe")
    assert not fifo.rescuers[0].opened


async def test_grep_in_a_git_tree_skips_a_fifo(project, fifo, engine):
    git(project)
    fifo("pipe")
    out = await call(project, "grep", pattern="return")
    assert out.content == "calc.py:2:    return a - b"
    assert not fifo.rescuers[0].opened


async def test_glob_lists_only_regular_files(project, fifo):
    fifo("pipe")
    out = await call(project, "glob", pattern="*")
    assert out.content == "calc.py"


@pytest.mark.parametrize("tool", ["write_file", "edit_file"])
async def test_write_and_edit_refuse_a_fifo(project, fifo, tool):
    pipe = fifo("pipe")
    args = {"content": "x"} if tool == "write_file" else {"old_string": "a", "new_string": "b"}
    with pytest.raises(ToolError, match="named pipe"):
        await call(project, tool, path="pipe", **args)
    assert not fifo.rescuers[0].opened and stat.S_ISFIFO(os.stat(pipe).st_mode)


async def test_write_file_preview_refuses_a_fifo(project, fifo):
    fifo("pipe")
    tool = get_tool("write_file")
    args = tool.args.model_validate({"path": "pipe", "content": "x"})
    with pytest.raises(ToolError, match="named pipe"):
        await asyncio.wait_for(tool.preview(args, ctx(project)), WAIT)
    assert not fifo.rescuers[0].opened


async def test_a_fifo_read_through_the_agent_is_an_error_result_and_the_turn_goes_on(
    make_agent, project, fifo
):
    fifo("pipe")
    calls = [
        {"name": "read_file", "input": {"path": "pipe"}},
        {"name": "grep", "input": {"pattern": "x"}},
    ]
    agent = await make_agent(script({"tool_calls": calls}, {"text": "done"}))
    events = await asyncio.wait_for(run(agent), WAIT)
    results = agent.messages[2].blocks
    assert results[0].is_error and "named pipe" in results[0].content
    assert of(events, E.TURN_END)[0].text == "done"
    assert not fifo.rescuers[0].opened


# -- catastrophic patterns, time limits and interrupts ----------------------------------------
CATASTROPHIC = r"^(\w+\s?)*$"  # the issue's pattern: exponential in a backtracking engine
SLOW = r"(?:a{1,30}){1,30}x"  # slow even for the regex module


async def test_grep_with_the_issues_catastrophic_pattern_finishes(project, monkeypatch):
    monkeypatch.setattr(grep_tool, "ripgrep", lambda root=None: None)
    (project / "long.txt").write_text("a" * 68 + "!!\n" + "ok line\n")
    out = await call(project, "grep", pattern=CATASTROPHIC)
    assert "long.txt:2:ok line" in out.content or "stopped" in out.content


async def test_grep_stops_a_slow_pattern_at_the_time_limit_and_says_so(project, monkeypatch):
    monkeypatch.setattr(grep_tool, "ripgrep", lambda root=None: None)
    (project / "a.txt").write_text("ax marks it\n")
    (project / "b.txt").write_text("a" * 68 + "\n" * 5)

    async def attempt(limit: float) -> ToolResult | None:
        monkeypatch.setattr(grep_tool, "TIMEOUT", limit)
        out = await call(project, "grep", pattern=SLOW)
        return out if out.content.startswith("a.txt:1:") else None  # stopped before a.txt

    out = await grown_until_async(attempt, 1.0)
    assert out.content.startswith("a.txt:1:ax marks it")
    assert "[search stopped" in out.content and "b.txt" in out.content
    assert out.data["stopped"]


async def test_grep_is_interrupted_at_once_by_cancelling_its_task(project, monkeypatch):
    monkeypatch.setattr(grep_tool, "ripgrep", lambda root=None: None)
    (project / "b.txt").write_text(("a" * 68 + "\n") * 50)
    tool = get_tool("grep")
    task = asyncio.create_task(tool.run(tool.args.model_validate({"pattern": SLOW}), ctx(project)))
    await asyncio.sleep(0.3)
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)
    # the worker thread gives up too (it would keep a core busy, and block interpreter exit)
    await until(
        lambda: not any(t.name.startswith("larik-grep") for t in threading.enumerate()),
        "the grep worker to give up",
    )


def fake_rg(tmp_path: Path, body: str) -> Path:
    rg = tmp_path / "bin" / "rg"
    rg.parent.mkdir(exist_ok=True)
    rg.write_text("#!/bin/sh\n" + body)
    rg.chmod(rg.stat().st_mode | stat.S_IEXEC)
    return rg


async def test_a_slow_ripgrep_is_stopped_at_the_time_limit_and_killed(
    project, tmp_path, monkeypatch
):
    pidfile = tmp_path / "rg.pid"
    rg = fake_rg(
        tmp_path,
        f"echo $$ > {pidfile}\nprintf 'calc.py\\0001:def add\\n'\nexec sleep {10 * WAIT:g}\n",
    )
    monkeypatch.setattr(grep_tool, "ripgrep", lambda root=None: str(rg))

    async def attempt(limit: float) -> ToolResult | None:
        monkeypatch.setattr(grep_tool, "TIMEOUT", limit)
        out = await call(project, "grep", pattern="def")
        return out if "calc.py" in out.content else None  # stopped before it printed

    out = await grown_until_async(attempt, 1.0)
    assert out.content.startswith("calc.py:1:def add") and "[search stopped" in out.content
    assert await gone(int(pidfile.read_text()))


async def test_cancelling_grep_kills_ripgrep(project, tmp_path, monkeypatch):
    pidfile = tmp_path / "rg.pid"
    rg = fake_rg(tmp_path, f"echo $$ > {pidfile}\nexec sleep 60\n")
    monkeypatch.setattr(grep_tool, "ripgrep", lambda root=None: str(rg))
    tool = get_tool("grep")
    task = asyncio.create_task(tool.run(tool.args.model_validate({"pattern": "x"}), ctx(project)))
    await until(lambda: pidfile.exists() and pidfile.read_text().strip(), "ripgrep to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, WAIT)
    assert await gone(int(pidfile.read_text()))


async def test_ripgrep_is_stopped_once_it_has_printed_enough(project, tmp_path, monkeypatch):
    pidfile = tmp_path / "rg.pid"
    rg = fake_rg(tmp_path, f"echo $$ > {pidfile}\nwhile :; do printf 'calc.py\\0001:x\\n'; done\n")
    monkeypatch.setattr(grep_tool, "ripgrep", lambda root=None: str(rg))
    out = await call(project, "grep", pattern="x")
    assert out.content.count("\n") == grep_tool.MAX_MATCHES
    assert await gone(int(pidfile.read_text()))


# -- names and contents that are not UTF-8 ------------------------------------------------------
LATIN1_NAME = os.fsdecode(b"caf\xe9.py")  # a lone surrogate in Python's str


@pytest.mark.parametrize("in_git", [False, True])
async def test_a_non_utf8_file_name_is_shown_escaped_and_can_be_read_back(project, engine, in_git):
    (project / LATIN1_NAME).write_text("VALUE = 1\n")
    if in_git:
        git(project)
    listed = await call(project, "glob", pattern="*.py")
    assert listed.content.splitlines() == ["caf\\xe9.py", "calc.py"]
    found = await call(project, "grep", pattern="VALUE")
    assert found.content == "caf\\xe9.py:1:VALUE = 1"
    read = await call(project, "read_file", path="caf\\xe9.py")
    assert read.content == "     1\tVALUE = 1"
    await call(project, "edit_file", path="caf\\xe9.py", old_string="1", new_string="2")
    assert (project / LATIN1_NAME).read_text() == "VALUE = 2\n"


async def test_non_utf8_names_and_contents_do_not_break_the_turn_or_the_transcript(
    make_agent, project, engine
):
    (project / LATIN1_NAME).write_bytes(b"caf\xe9 = 'cr\xe8me'\n")  # Latin-1 inside too
    (project / "notes.txt").write_bytes(b"plain line\nna\xefve \xff\xfe line\n")
    os.symlink(LATIN1_NAME, project / os.fsdecode(b"link-\xff.py"))
    calls = [
        {"name": "glob", "input": {"pattern": "*"}},
        {"name": "grep", "input": {"pattern": "caf|line"}},
        {"name": "read_file", "input": {"path": "notes.txt"}},
        {"name": "read_file", "input": {"path": "caf\\xe9.py"}},
        {"name": "read_file", "input": {"path": "nope-\\xe9"}},
    ]
    agent = await make_agent(script({"tool_calls": calls}, {"text": "done"}))
    events = await run(agent)
    assert of(events, E.TURN_END)[0].text == "done"
    assert not [e for e in of(events, E.ERROR)]
    results = agent.messages[2].blocks
    for b in results:
        b.content.encode("utf-8")  # no lone surrogates anywhere
    assert "caf\\xe9.py" in results[0].content and "link-\\xff.py" in results[0].content
    assert "na\ufffdve" in results[1].content or "na\ufffdve" in results[2].content
    assert "cr\ufffdme" in results[3].content and "not UTF-8" in results[3].content
    assert results[4].is_error and "nope-\\xe9" in results[4].content
    loaded = load_transcript(agent.transcript_path)
    assert loaded.messages == agent.messages
    valid_conversation(agent.messages)


def test_a_tool_result_never_carries_lone_surrogates():
    r = ToolResult("a\udce9b \ud800", data={"diff": "x\udcff"})
    assert r.content == "a\\xe9b \\ud800" and r.data["diff"] == "x\\xff"
    r.content.encode("utf-8")


async def test_write_file_with_lone_surrogates_in_content_is_a_clear_error(project):
    with pytest.raises(ToolError, match="not valid text"):
        await call(project, "write_file", path="x.txt", content="bad \udce9")
    assert not (project / "x.txt").exists()
