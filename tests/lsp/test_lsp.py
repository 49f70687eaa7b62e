"""Language-server diagnostics after an edit (issue 28): real servers, and lying ones."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from larik.agent.tools import ToolContext, write_file
from larik.agent.tools._seen import SeenFiles
from larik.config.tables import LspConfig, LspServerConfig
from larik.lsp import servers
from larik.lsp.session import LspSession
from tests.patience import LSP_WAITS, WAIT, grown_until

HOSTILE = Path(__file__).with_name("hostile_server.py")
RUFF = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
PYLSP = shutil.which("pylsp") or str(Path(sys.executable).with_name("pylsp"))
BASEDPYRIGHT = shutil.which("basedpyright-langserver") or str(
    Path(sys.executable).with_name("basedpyright-langserver")
)
DOCS = Path(__file__).parents[2] / "docs" / "lsp.md"


def _session(root: Path, trusted: bool = True, **lsp) -> LspSession:
    lsp.setdefault(
        "servers", {"ruff": LspServerConfig(command=[RUFF, "server"], languages=["python"])}
    )
    cfg = SimpleNamespace(lsp=LspConfig(**lsp), folder_trusted=trusted)
    return LspSession(cfg, root)


def _run(coro):
    return asyncio.run(coro)


def test_the_known_servers_table_is_whole_and_documented():
    doc = DOCS.read_text()
    names = [s.name for s in servers.KNOWN]
    assert len(names) == len(set(names))
    for spec in servers.KNOWN:
        assert spec.command and spec.languages
        assert set(spec.languages) <= set(servers.SUFFIXES), spec.name
        assert f"`{spec.command[0]}`" in doc, spec.name
    assert {"python", "typescript", "go", "rust", "c"} <= {
        lang for s in servers.KNOWN for lang in s.languages
    }


def test_a_server_in_the_projects_venv_is_found_and_marked_as_the_projects(tmp_path):
    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "pylsp").write_text("#!/bin/sh\n")
    (bin_ / "pylsp").chmod(0o755)
    spec = next(s for s in servers.KNOWN if s.name == "pylsp")
    found = servers.find(spec, tmp_path, project_bins=True)
    assert found is not None and found.in_project and found.argv[0] == str(bin_ / "pylsp")
    # an untrusted project's own is never found (PATH's may be)
    other = servers.find(spec, tmp_path, project_bins=False)
    assert other is None or not other.argv[0].startswith(str(tmp_path))


def test_ruff_server_reports_exactly_the_error_an_edit_introduces(tmp_path):
    async def go():
        s = _session(tmp_path, **LSP_WAITS)
        p = tmp_path / "a.py"
        try:
            assert await s.after_write(p, "", "x = 1\n", "a.py") == ""
            broke = await s.after_write(p, "x = 1\n", "x = undefined_name\n", "a.py")
            assert broke.splitlines()[1:] == ["a.py:1:5 error F821 Undefined name `undefined_name`"]
            # the old error stays: not said again; only the new one is
            more = await s.after_write(
                p, "x = undefined_name\n", "x = undefined_name\ny = other\n", "a.py"
            )
            assert more.splitlines()[1:] == ["a.py:2:5 error F821 Undefined name `other`"]
            # a fix says nothing
            assert (
                await s.after_write(p, "x = undefined_name\ny = other\n", "x = 1\n", "a.py") == ""
            )
            assert s.notices == [] and s.count == 2
        finally:
            await s.close()

    _run(go())


def test_a_pre_existing_error_is_not_repeated_on_the_first_edit(tmp_path):
    async def go():
        s = _session(tmp_path, **LSP_WAITS)
        p = tmp_path / "b.py"
        old = "print(missing)\n"
        try:
            out = await s.after_write(p, old, old + "z = 2\n", "b.py")
            assert out == ""
        finally:
            await s.close()

    _run(go())


def test_write_file_appends_the_diagnostics_to_its_result(tmp_path):
    async def go():
        s = _session(tmp_path, **LSP_WAITS)
        ctx = ToolContext(root=tmp_path, seen=SeenFiles(), lsp=s)
        try:
            args = write_file.Args(path="c.py", content="import os\nprint(nope)\n")
            result = await write_file.run(args, ctx)
        finally:
            await s.close()
        assert "c.py:2:7 error F821 Undefined name `nope`" in result.content
        assert "c.py:2:7 error F821 Undefined name `nope`" in result.data["diagnostics"]
        assert (
            "F401" not in result.content or "c.py:1:8" in result.content
        )  # any F401 is the write's own

    _run(go())


def test_no_server_starts_in_an_untrusted_project_and_it_is_said_once(tmp_path):
    async def go():
        s = _session(tmp_path, trusted=False)
        p = tmp_path / "a.py"
        first = await s.after_write(p, "", "x = nope\n", "a.py")
        second = await s.after_write(p, "x = nope\n", "x = nope2\n", "a.py")
        await s.close()
        return s, first, second

    s, first, second = _run(go())
    assert "untrusted project" in first and second == ""
    assert s.servers == {} and len(s.notices) == 1


def test_the_users_config_can_enable_servers_in_an_untrusted_project(tmp_path):
    async def go():
        s = _session(tmp_path, trusted=False, enabled=True, **LSP_WAITS)
        try:
            return await s.after_write(tmp_path / "a.py", "", "x = nope\n", "a.py")
        finally:
            await s.close()

    assert "F821" in _run(go())


def _ships(root: Path, folder: str, program: str, marker: Path) -> None:
    """``root/folder/program``: an executable that leaves ``marker`` when it is run."""
    bin_ = root / folder
    bin_.mkdir(parents=True, exist_ok=True)
    (bin_ / program).write_text(f"#!/bin/sh\necho ran > '{marker}'\n")
    (bin_ / program).chmod(0o755)


@pytest.mark.parametrize(
    ("folder", "program", "file"),
    [
        (".venv/bin", "ruff", "a.py"),
        ("node_modules/.bin", "typescript-language-server", "a.ts"),
        ("tools/bin", "ruff", "a.py"),  # not a project bin, but on PATH: a venv activated
    ],
)
@pytest.mark.parametrize("trusted", [False, True])
def test_enabled_in_an_untrusted_project_never_runs_the_programs_it_ships(
    tmp_path, monkeypatch, folder, program, file, trusted
):
    home = Path(os.environ["LARIK_HOME"])
    root = tmp_path / "project"
    root.mkdir()
    marker = tmp_path / "RAN"
    _ships(root, folder, program, marker)
    if folder == "tools/bin":
        monkeypatch.setenv("PATH", f"{root / folder}{os.pathsep}{os.environ.get('PATH', '')}")
    listed = f"trusted_projects = [{str(root)!r}]\n" if trusted else ""
    # the user's own config turns servers on everywhere; only ruff (or tsserver) of the table
    (home / "config.toml").write_text(
        listed + "[lsp]\nenabled = true\nstart_ms = 60000\nwait_ms = 200\n"
        'disabled = ["basedpyright", "pyright", "ty", "pylsp"]\n'
    )
    from larik.config import load_config

    async def go():
        s = LspSession(load_config(root), root)
        ctx = ToolContext(root=root, seen=SeenFiles(), lsp=s)
        try:
            await write_file.run(write_file.Args(path=file, content="x = nope\n"), ctx)
        finally:
            await s.close()
        return s

    s = _run(go())
    if not trusted:
        assert not marker.exists(), f"an untrusted project's {folder}/{program} was run"
        found = s.found.get(servers.language_of(Path(file)))
        assert found is None or not found.argv[0].startswith(str(root))
    else:  # trusted: the project's own is what runs
        assert marker.exists()


@pytest.mark.parametrize("mode", ["hang", "garbage", "huge", "crash"])
def test_a_lying_server_costs_one_notice_and_at_most_one_restart(tmp_path, mode):
    fake = LspServerConfig(command=[sys.executable, str(HOSTILE), mode], languages=["python"])

    async def go():
        s = _session(tmp_path, servers={"fake": fake}, wait_ms=1000, start_ms=1500)
        p = tmp_path / "a.py"
        outs = []
        try:
            old = ""
            for i in range(4):  # each write returns (its start and waits are bounded)
                new = f"x = {i}\n"
                outs.append(await asyncio.wait_for(s.after_write(p, old, new, "a.py"), WAIT))
                old = new
        finally:
            await s.close()
        return s, outs

    s, outs = _run(go())
    assert len(s.notices) == 1 and ("fake" in s.notices[0] or "python" in s.notices[0])
    assert s.starts["python"] <= 2
    assert sum(1 for o in outs if o) == 1


def test_a_restart_that_fails_too_says_nothing_more(tmp_path):
    """A crash, then a restart that never starts (seen on a loaded machine: the restart's slow
    start was a second notice): one notice for the server in the session, no third start."""
    marker = tmp_path / "started-once"
    fake = LspServerConfig(
        command=[sys.executable, str(HOSTILE), "crash-then-hang", str(marker)],
        languages=["python"],
    )

    async def go(start_ms: int):
        s = _session(tmp_path, servers={"fake": fake}, wait_ms=1000, start_ms=start_ms)
        p = tmp_path / "a.py"
        outs = []
        try:
            old = ""
            for i in range(3):
                new = f"x = {i}\n"
                outs.append(await asyncio.wait_for(s.after_write(p, old, new, "a.py"), WAIT))
                old = new
        finally:
            await s.close()
        return (s, outs) if marker.exists() else None  # None: given up before it ran

    s, outs = grown_until(lambda ms: _run(go(int(ms))), 1500, LSP_WAITS["start_ms"])
    assert s.starts["python"] == 2
    assert len(s.notices) == 1 and s.notices[0].startswith("lsp: fake stopped:"), s.notices
    assert [o for o in outs if o] == s.notices


def test_a_flooding_server_is_cut_to_max_lines(tmp_path):
    fake = LspServerConfig(command=[sys.executable, str(HOSTILE), "flood"], languages=["python"])

    async def go():
        s = _session(tmp_path, servers={"fake": fake}, wait_ms=30_000, start_ms=60_000, max_lines=5)
        try:
            return await s.after_write(tmp_path / "a.py", "", "x = 1\n", "a.py")
        finally:
            await s.close()

    lines = _run(go()).splitlines()
    assert len(lines) == 1 + 5 + 1 and lines[-1].startswith("… and ")


def test_a_server_runs_in_the_sandbox_with_the_project_read_only(tmp_path):
    from larik.sandbox import Sandbox, probe

    if probe():
        pytest.skip(f"no sandbox here: {probe()}")
    # the server's script in the project: a checkout under /tmp (CI) is hidden by the private /tmp
    script = tmp_path / "hostile_server.py"
    script.write_bytes(HOSTILE.read_bytes())
    fake = LspServerConfig(command=[sys.executable, str(script), "write"], languages=["python"])

    async def go(sandbox):
        s = _session(tmp_path, servers={"fake": fake}, wait_ms=200, start_ms=60_000)
        s.sandbox = sandbox
        try:
            await s.after_write(tmp_path / "a.py", "", "x = 1\n", "a.py")
            return s.servers["python"].broken
        finally:
            await s.close()

    # the session's sandbox is workspace-write; the server's is read-only
    assert _run(go(Sandbox(mode="workspace-write"))) == ""
    assert not (tmp_path / "PWNED").exists()
    assert _run(go(None)) == ""  # unsandboxed (the check is real): it can write
    assert (tmp_path / "PWNED").exists()


def test_larik_lsp_lists_the_servers_found_and_why_they_would_not_run(tmp_path):
    from larik.commands.lsp import _status

    bin_ = tmp_path / ".venv" / "bin"
    bin_.mkdir(parents=True)
    (bin_ / "pylsp").write_text("#!/bin/sh\n")
    (bin_ / "pylsp").chmod(0o755)
    status = _status(tmp_path)
    rows, why = status["servers"], status["off"]
    assert [r["name"] for r in rows] == [s.name for s in servers.KNOWN]
    pylsp = next(r for r in rows if r["name"] == "pylsp")
    # untrusted: the project's own is named as not run, never listed as what would run
    assert not pylsp["in_project"] and pylsp["path"] != str(bin_ / "pylsp")
    assert pylsp["not_run"] == str(bin_ / "pylsp")
    assert "untrusted project" in why
    from larik.lsp.session import status_text

    assert f"not {bin_ / 'pylsp'}: the project's own runs only in a trusted" in status_text(status)


def test_edit_file_reports_what_it_broke_and_nothing_once_fixed(tmp_path):
    from larik.agent.tools import edit_file, read_file

    (tmp_path / "d.py").write_text("import sys\n\nprint(sys.argv)\n")

    async def go():
        s = _session(tmp_path, **LSP_WAITS)
        ctx = ToolContext(root=tmp_path, seen=SeenFiles(), lsp=s)
        try:
            await read_file.run(read_file.Args(path="d.py"), ctx)
            broke = await edit_file.run(
                edit_file.Args(path="d.py", old_string="sys.argv", new_string="sys.argv, argz"),
                ctx,
            )
            fixed = await edit_file.run(
                edit_file.Args(path="d.py", old_string=", argz", new_string=""), ctx
            )
        finally:
            await s.close()
        return broke, fixed

    broke, fixed = _run(go())
    assert broke.data["diagnostics"] == ["d.py:3:17 error F821 Undefined name `argz`"]
    assert broke.content.endswith("d.py:3:17 error F821 Undefined name `argz`")
    assert "diagnostics" not in fixed.data and "language server" not in fixed.content


def test_two_writes_at_once_start_one_server(tmp_path):
    async def go():
        s = _session(tmp_path, **LSP_WAITS)
        try:
            outs = await asyncio.gather(
                s.after_write(tmp_path / "a.py", "", "x = nope_a\n", "a.py"),
                s.after_write(tmp_path / "b.py", "", "x = nope_b\n", "b.py"),
            )
            started = len(s._started)
        finally:
            await s.close()
        return s, outs, started

    s, outs, started = _run(go())
    assert s.starts["python"] == 1 and started == 1
    assert "nope_a" in outs[0] and "nope_b" in outs[1]


def test_a_step_says_a_files_error_once_however_often_it_edits_it(tmp_path):
    async def go():
        s = _session(tmp_path, **LSP_WAITS)
        p = tmp_path / "e.py"
        try:
            s.new_step()
            assert await s.after_write(p, "", "x = 1\n", "e.py") == ""
            broke = await s.after_write(p, "x = 1\n", "x = nope\n", "e.py")
            assert broke.splitlines()[1:] == ["e.py:1:5 error F821 Undefined name `nope`"]
            assert await s.after_write(p, "x = nope\n", "x = 1\n", "e.py") == ""
            # the same step brings it back elsewhere: said already
            assert await s.after_write(p, "x = 1\n", "x = 1\ny = nope\n", "e.py") == ""
            s.new_step()  # the next step: a new one is said again
            again = await s.after_write(p, "x = 1\ny = nope\n", "x = nope\ny = nope\n", "e.py")
            (line,) = again.splitlines()[1:]  # one of the two (matched by message, not line)
            assert line.endswith("error F821 Undefined name `nope`")
        finally:
            await s.close()

    _run(go())


def test_pylsp_reports_exactly_the_undefined_name_an_edit_introduces(tmp_path):
    pytest.importorskip("pyflakes")  # the test extra: python-lsp-server[pyflakes]
    pylsp = {"pylsp": LspServerConfig(command=[PYLSP], languages=["python"])}

    async def go():
        s = _session(tmp_path, **LSP_WAITS, servers=pylsp)
        p = tmp_path / "f.py"
        old = "import os\n\nprint(missing)\n"  # two errors before the edit: not repeated
        try:
            s.new_step()
            broke = await s.after_write(p, old, old + "x = reponse\n", "f.py")
            s.new_step()
            fixed = await s.after_write(p, old + "x = reponse\n", old + "x = 1\n", "f.py")
            return broke, fixed, s.notices, s.found["python"].spec.name
        finally:
            await s.close()

    broke, fixed, notices, name = _run(go())
    assert name == "pylsp" and notices == []
    assert broke.splitlines()[1:] == ["f.py:4:5 error undefined name 'reponse'"]
    assert fixed == ""


def _basedpyright() -> dict[str, LspServerConfig]:
    """The known basedpyright spec (its settings too) at the test environment's program."""
    if not Path(BASEDPYRIGHT).is_file():  # the test extra installs it: CI must have it
        if os.environ.get("LARIK_CI"):
            pytest.fail("basedpyright-langserver is not installed (pip install -e '.[test]')")
        pytest.skip("basedpyright-langserver is not installed")
    spec = next(s for s in servers.KNOWN if s.name == "basedpyright")
    command = [BASEDPYRIGHT, *spec.command[1:]]
    return {
        "basedpyright": LspServerConfig(
            command=command, languages=list(spec.languages), settings=spec.settings or {}
        )
    }


def test_basedpyright_reports_exactly_the_type_error_an_edit_introduces(tmp_path):
    servers_ = _basedpyright()
    pre = "def f(x: int) -> int:\n    return x\n\n\nbad: str = f(1)\n"  # one error before

    async def go():
        s = _session(tmp_path, **LSP_WAITS, servers=servers_)
        p = tmp_path / "t.py"
        p.write_text(pre)
        try:
            s.new_step()
            broke = await s.after_write(p, pre, pre + 'y = f("one")\n', "t.py")
            s.new_step()
            fixed = await s.after_write(p, pre + 'y = f("one")\n', pre + "y = f(1)\n", "t.py")
            return broke, fixed, s.notices, s.servers["python"].pull
        finally:
            await s.close()

    broke, fixed, notices, pull = _run(go())
    assert notices == [] and pull  # pulled: registered after initialize, as pyright does
    (line,) = broke.splitlines()[1:]  # the pre-existing str/int error is not repeated
    assert line.startswith("t.py:6:7 error reportArgumentType Argument of type \"Literal['one']\"")
    assert fixed == ""


def test_a_server_that_only_answers_pulls_gets_its_diagnostics_pulled(tmp_path):
    fake = LspServerConfig(command=[sys.executable, str(HOSTILE), "pull"], languages=["python"])

    async def go():
        s = _session(tmp_path, servers={"fake": fake}, **LSP_WAITS)
        p = tmp_path / "g.py"
        try:
            s.new_step()
            broke = await s.after_write(p, "x = 1\n", "x = 1\ny = undefined\n", "g.py")
            s.new_step()
            fixed = await s.after_write(p, "x = 1\ny = undefined\n", "x = 1\n", "g.py")
            return broke, fixed, s.servers["python"].pull, s.notices
        finally:
            await s.close()

    broke, fixed, pull, notices = _run(go())
    assert pull and notices == []
    assert broke.splitlines()[1:] == ["g.py:2:1 error U1 undefined here"]
    assert fixed == ""


def test_a_command_that_breaks_an_open_file_gets_its_diagnostics(tmp_path):
    from larik.agent.tools import bash

    async def go():
        s = _session(tmp_path, **LSP_WAITS)
        ctx = ToolContext(root=tmp_path, seen=SeenFiles(), lsp=s)
        try:
            (tmp_path / "h.py").write_text("x = 1\n")
            assert await s.after_write(tmp_path / "h.py", "", "x = 1\n", "h.py") == ""
            s.new_step()
            broke = await bash.run(bash.Args(command="printf 'x = nope\\n' > h.py"), ctx)
            s.new_step()
            quiet = await bash.run(bash.Args(command="echo hi > other.py"), ctx)  # not open
            fixed = await bash.run(bash.Args(command="printf 'x = 1\\n' > h.py"), ctx)
        finally:
            await s.close()
        return broke, quiet, fixed

    broke, quiet, fixed = _run(go())
    assert broke.data["diagnostics"] == ["h.py:1:5 error F821 Undefined name `nope`"]
    assert broke.content.endswith(
        "[exit code 0]\n" + LspSession.HEADING + "\n" + "h.py:1:5 error F821 Undefined name `nope`"
    )
    assert "diagnostics" not in quiet.data and "language server" not in quiet.content
    assert "diagnostics" not in fixed.data and "language server" not in fixed.content


def test_a_server_that_registers_pull_late_and_asks_its_settings_is_pulled(tmp_path):
    # basedpyright's way: no diagnosticProvider in initialize; after initialized it asks for
    # its settings, registers textDocument/diagnostic, asks for a refresh, and ends itself at
    # an error answer to any of them
    fake = LspServerConfig(
        command=[sys.executable, str(HOSTILE), "pull-late"],
        languages=["python"],
        settings={"fake": {"analysis": {"mode": "strictest"}}},
    )

    async def go():
        s = _session(tmp_path, servers={"fake": fake}, **LSP_WAITS)
        p = tmp_path / "g.py"
        try:
            s.new_step()
            broke = await s.after_write(p, "x = 1\n", "x = 1\ny = undefined\n", "g.py")
            s.new_step()
            fixed = await s.after_write(p, "x = 1\ny = undefined\n", "x = 1\n", "g.py")
            server = s.servers["python"]
            return broke, fixed, server.pull, server.broken, s.notices
        finally:
            await s.close()

    broke, fixed, pull, broken, notices = _run(go())
    assert pull and not broken and notices == []
    assert broke.splitlines()[1:] == ["g.py:2:1 error U1 undefined here (mode strictest)"]
    assert fixed == ""


def test_a_7_mb_poisoned_diagnostic_reaches_the_result_bounded_and_clean(tmp_path):
    """A real server publishing one diagnostic whose ``code`` is 7 MB with ``ESC]52`` (the
    clipboard) and U+202E inside, and every other text field hostile too: it reached a tool
    result whole and forced a compaction (issue 42 item 5). Now its line is bounded and
    cleaned by the one rule (larik.others_text); the other fields are never said."""
    fake = LspServerConfig(command=[sys.executable, str(HOSTILE), "poison"], languages=["python"])

    async def go():
        s = _session(tmp_path, servers={"fake": fake}, wait_ms=30_000, start_ms=30_000)
        ctx = ToolContext(root=tmp_path, seen=SeenFiles(), lsp=s)
        try:
            return await write_file.run(write_file.Args(path="c.py", content="x = 1\n"), ctx)
        finally:
            await s.close()

    result = _run(go())
    assert "c.py:1:1 error" in result.content, result.content[:300]
    assert len(result.content) < 1_000
    for bad in ("\x1b", "\x07", "\x00", "\u202e"):
        assert bad not in result.content
        assert not any(bad in line for line in result.data["diagnostics"])
    assert "\\u202e" in result.content  # named, not obeyed
