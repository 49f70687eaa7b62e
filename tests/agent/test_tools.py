"""Each tool's rules, called directly with a ToolContext."""

from __future__ import annotations

import asyncio
import base64
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from larik.agent.tools import ToolContext, ToolError, get_tool
from larik.agent.tools import bash as bash_tool
from larik.agent.tools import read_file as read_tool
from tests.patience import WAIT, grown_until_async, until
from tests.procs import gone

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


def ctx(root: Path) -> ToolContext:
    return ToolContext(root=root)


async def call(root: Path, name: str, **args):
    tool = get_tool(name)
    return await tool.run(tool.args.model_validate(args), ctx(root))


# -- read_file ---------------------------------------------------------------------------------
async def test_read_file_numbers_lines(project):
    out = await call(project, "read_file", path="calc.py")
    assert out.content == "     1\tdef add(a, b):\n     2\t    return a - b"


async def test_read_file_pages_a_long_file_and_says_how_to_go_on(project):
    (project / "long.txt").write_text("".join(f"line {i}\n" for i in range(1, 5001)))
    first = await call(project, "read_file", path="long.txt")
    assert first.content.splitlines()[0].endswith("line 1")
    assert "lines 1-2000 of 5000" in first.content and "offset=2001" in first.content
    page = await call(project, "read_file", path="long.txt", offset=4999, limit=10)
    rows = page.content.splitlines()
    assert rows == ["  4999\tline 4999", "  5000\tline 5000"]


async def test_read_file_cuts_huge_lines_and_caps_a_page(project):
    (project / "min.js").write_text("x" * 50_000 + "\n" + ("y" * 1_900 + "\n") * 200)
    out = await call(project, "read_file", path="min.js")
    assert len(out.content) < read_tool.MAX_CHARS + 500
    assert "[line cut]" in out.content and "call read_file with offset=" in out.content


@pytest.mark.parametrize(("long", "said"), [(1, "1 line longer than"), (3, "3 lines longer than")])
async def test_read_file_says_whole_how_many_lines_it_cut(project, long, said):
    (project / "wide.txt").write_text("short\n" + ("z" * (read_tool.MAX_LINE + 10) + "\n") * long)
    out = await call(project, "read_file", path="wide.txt")
    verb = "was" if long == 1 else "were"
    assert out.content.endswith(f"[{said} {read_tool.MAX_LINE} characters {verb} cut]")


async def test_read_file_returns_images_as_image_blocks(project):
    (project / "dot.png").write_bytes(PNG)
    out = await call(project, "read_file", path="dot.png")
    assert not out.is_error and len(out.images) == 1
    img = out.images[0]
    assert img.type == "image" and img.media_type == "image/png"
    assert base64.b64decode(img.data) == PNG


async def test_read_file_refuses_binary_files_clearly(project):
    (project / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02" + bytes(range(256)) * 10)
    with pytest.raises(ToolError, match="binary file"):
        await call(project, "read_file", path="blob.bin")


async def test_read_file_missing_file_and_directory_are_clear_errors(project):
    with pytest.raises(ToolError, match="no such file: nope.py"):
        await call(project, "read_file", path="nope.py")
    with pytest.raises(ToolError, match="is a directory"):
        await call(project, "read_file", path=".")


async def test_a_directory_given_as_a_file_names_its_files(project):
    # small models give the project root as the path; the error shows them what to read
    (project / "pkg").mkdir()
    (project / "pkg" / "mod.py").write_text("x = 1\n")
    (project / ".git").mkdir()
    with pytest.raises(ToolError) as e:
        await call(project, "read_file", path=str(project))
    assert str(e.value) == ". is a directory, not a file; in it: calc.py, pkg/"
    with pytest.raises(ToolError, match=r"pkg is a directory, not a file; in it: pkg/mod.py$"):
        await call(project, "edit_file", path="pkg", old_string="a", new_string="b")
    with pytest.raises(ToolError, match="in it: calc.py, pkg/"):
        await call(project, "write_file", path=".", content="x")
    with pytest.raises(ToolError) as e:
        await call(project, "read_file", path=str(project / "sample.txt"))
    assert str(e.value) == "no such file: sample.txt; in .: calc.py, pkg/"
    with pytest.raises(ToolError, match=r"^no such file: pkg/x/y.py; in pkg: pkg/mod.py$"):
        await call(project, "edit_file", path="pkg/x/y.py", old_string="a", new_string="b")
    outside = project.parent / "elsewhere"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    with pytest.raises(ToolError) as e:
        await call(project, "read_file", path=str(outside / "nope.txt"))
    assert "secret" not in str(e.value)
    with pytest.raises(ToolError) as e:
        await call(project, "read_file", path=str(outside))
    assert "secret" not in str(e.value)
    for i in range(45):
        (project / "pkg" / f"f{i:02}.py").write_text("")
    with pytest.raises(ToolError, match=r"pkg/f39.py and 6 more$"):
        await call(project, "read_file", path="pkg")


async def test_read_file_offset_past_the_end_says_how_long_the_file_is(project):
    with pytest.raises(ToolError, match="has 2 lines"):
        await call(project, "read_file", path="calc.py", offset=10)


# -- write_file / edit_file --------------------------------------------------------------------
async def test_write_file_creates_parents_and_reports_a_diff(project):
    out = await call(project, "write_file", path="pkg/new.py", content="x = 1\n")
    assert (project / "pkg" / "new.py").read_text() == "x = 1\n"
    assert out.content.startswith("created pkg/new.py")
    assert "+x = 1" in out.data["diff"] and "/dev/null" in out.data["diff"]


async def test_write_file_over_a_file_diffs_against_the_old_content(project):
    out = await call(project, "write_file", path="calc.py", content="print('hi')\n")
    assert "-def add(a, b):" in out.data["diff"] and "+print('hi')" in out.data["diff"]


async def test_edit_file_replaces_exactly_one_match_and_returns_a_unified_diff(project):
    out = await call(project, "edit_file", path="calc.py", old_string="a - b", new_string="a + b")
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
    diff = out.data["diff"]
    assert diff.startswith("--- a/calc.py\n+++ b/calc.py\n@@")
    assert "-    return a - b\n+    return a + b\n" in diff and diff in out.content


async def test_edit_file_refuses_an_ambiguous_match_unless_replace_all(project):
    (project / "t.txt").write_text("counter = 1\ncounter = 1\nb\n")
    with pytest.raises(ToolError, match="occurs 2 times"):
        await call(project, "edit_file", path="t.txt", old_string="counter = 1", new_string="c")
    assert (project / "t.txt").read_text() == "counter = 1\ncounter = 1\nb\n"
    out = await call(
        project,
        "edit_file",
        path="t.txt",
        old_string="counter = 1",
        new_string="c",
        replace_all=True,
    )
    assert (project / "t.txt").read_text() == "c\nc\nb\n" and "2 replacements" in out.content


async def test_edit_file_not_found_and_no_op_are_clear_errors(project):
    with pytest.raises(ToolError, match="not found"):
        await call(project, "edit_file", path="calc.py", old_string="zzz", new_string="y")
    with pytest.raises(ToolError, match="the same"):
        await call(project, "edit_file", path="calc.py", old_string="add", new_string="add")
    with pytest.raises(ToolError, match="no such file"):
        await call(project, "edit_file", path="gone.py", old_string="a", new_string="b")


async def test_edit_file_keeps_crlf_line_endings(project):
    (project / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    await call(project, "edit_file", path="w.txt", old_string="one\ntwo", new_string="1\n2")
    assert (project / "w.txt").read_bytes() == b"1\r\n2\r\n"


async def test_edit_file_refuses_binary_files(project):
    (project / "b.bin").write_bytes(b"ab\x00cd")
    with pytest.raises(ToolError, match="binary"):
        await call(project, "edit_file", path="b.bin", old_string="ab", new_string="x")


# -- glob ---------------------------------------------------------------------------------------
def _tree(root: Path) -> None:
    (root / "src" / "deep").mkdir(parents=True)
    (root / "src" / "a.py").write_text("")
    (root / "src" / "deep" / "b.py").write_text("")
    (root / "build").mkdir()
    (root / "build" / "gen.py").write_text("")
    (root / "notes.log").write_text("")
    (root / ".gitignore").write_text("build/\n*.log\n")


@pytest.mark.parametrize("in_git", [True, False])
async def test_glob_matches_paths_and_respects_gitignore(project, in_git):
    _tree(project)
    if in_git:
        subprocess.run(["git", "init", "-q", str(project)], check=True)
    out = await call(project, "glob", pattern="**/*.py")
    assert out.content.splitlines() == ["calc.py", "src/a.py", "src/deep/b.py"]
    top = await call(project, "glob", pattern="*.py")
    assert top.content == "calc.py"
    logs = await call(project, "glob", pattern="*.log")
    assert logs.content.startswith("no files match")


async def test_glob_under_a_subdirectory_shows_project_relative_paths(project):
    _tree(project)
    out = await call(project, "glob", pattern="**/*.py", path="src")
    assert out.content.splitlines() == ["src/a.py", "src/deep/b.py"]


# -- grep ---------------------------------------------------------------------------------------
async def test_grep_python_fallback_finds_lines_and_respects_glob_and_gitignore(
    project, monkeypatch
):
    monkeypatch.setenv("PATH", "/nonexistent")  # no ripgrep: the fallback runs
    _tree(project)
    (project / "src" / "a.py").write_text("import os\nVALUE = 1\n")
    (project / "build" / "gen.py").write_text("VALUE = 2\n")
    (project / "README.md").write_text("VALUE in docs\n")
    out = await call(project, "grep", pattern=r"VALUE\s=")
    assert out.content == "src/a.py:2:VALUE = 1" and out.data["engine"] == "python"
    only_md = await call(project, "grep", pattern="VALUE", glob="*.md")
    assert only_md.content == "README.md:1:VALUE in docs"


async def test_grep_uses_ripgrep_when_it_is_on_path(project, tmp_path, monkeypatch):
    fake = tmp_path / "bin"
    fake.mkdir()
    rg = fake / "rg"
    rg.write_text("#!/bin/sh\nprintf 'calc.py\\0001:from fake rg\\n'\n")  # rg's --null form
    rg.chmod(rg.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake}:{os.environ['PATH']}")
    out = await call(project, "grep", pattern="add")
    assert out.content == "calc.py:1:from fake rg" and out.data["engine"] == "rg"


async def test_grep_bad_regex_is_a_clear_error(project):
    with pytest.raises(ToolError, match="invalid regular expression"):
        await call(project, "grep", pattern="(unclosed")


# -- bash ---------------------------------------------------------------------------------------
async def test_bash_reports_output_and_exit_code(project):
    out = await call(project, "bash", command="echo out; echo err >&2; exit 3")
    assert out.content == "out\nerr\n[exit code 3]"
    assert out.data["exit_code"] == 3 and not out.is_error


async def test_bash_runs_in_the_project_root(project):
    out = await call(project, "bash", command="ls")
    assert "calc.py" in out.content


async def test_bash_caps_output_keeping_the_tail(project, monkeypatch):
    monkeypatch.setattr(bash_tool, "MAX_OUTPUT", 1000)
    out = await call(project, "bash", command="seq 1 20000")
    assert "20000" in out.content and "\n1\n" not in out.content
    assert "bytes of earlier output omitted" in out.content
    assert len(out.content) < 1200


async def test_bash_timeout_kills_the_whole_process_group(project):
    cmd = f"sleep {10 * WAIT:g} & echo $! > child.pid; sleep {10 * WAIT:g}"

    async def attempt(timeout: float) -> tuple[float, Any] | None:
        out = await call(project, "bash", command=cmd, timeout=timeout)
        return (timeout, out) if (project / "child.pid").exists() else None  # out of time first

    timeout, out = await grown_until_async(attempt, 0.5)
    assert out.is_error and f"timed out after {timeout:g} s" in out.content
    assert out.data["timed_out"]
    child = int((project / "child.pid").read_text())
    assert await gone(child), "the background child survived the timeout"


async def test_bash_does_not_hang_on_a_background_process_holding_the_output(project, monkeypatch):
    monkeypatch.setattr(bash_tool, "GRACE", 0.2)
    out = await call(project, "bash", command="sleep 30 & echo done")
    assert "done" in out.content and "[exit code 0]" in out.content
    assert "background processes" in out.content


async def test_bash_cancelled_kills_its_process_group(project):
    context = ctx(project)
    tool = get_tool("bash")
    task = asyncio.create_task(
        tool.run(tool.args.model_validate({"command": "echo $$ > sh.pid; sleep 30"}), context)
    )
    pid_file = project / "sh.pid"
    await until(
        lambda: context.processes and pid_file.exists() and pid_file.read_text().strip(),
        "the shell",
        every=0.01,
    )
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not context.processes
    shell = int((project / "sh.pid").read_text())
    assert await gone(shell)


def test_a_process_group_id_reused_by_another_process_is_not_killed():
    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        bash_tool.kill_group(proc.pid, "not-its-start-time")
        assert proc.poll() is None
        bash_tool.kill_group(proc.pid, bash_tool.start_token(proc.pid))
        assert proc.wait(WAIT) == -9
    finally:
        proc.kill()
        proc.wait()


# -- task (without a spawner) -------------------------------------------------------------------
async def test_task_without_a_spawner_is_a_clear_error(project):
    with pytest.raises(ToolError, match="subagents cannot start subagents"):
        await call(project, "task", role="explore", prompt="look around")


# -- schemas ------------------------------------------------------------------------------------
def test_tool_schemas_have_the_documented_names_and_arguments():
    from larik.agent.tools import ALL_TOOLS, tool_specs

    specs = {s.name: s.input_schema for s in tool_specs(ALL_TOOLS)}
    args = {n: set(s["properties"]) for n, s in specs.items()}
    assert args == {
        "read_file": {"path", "offset", "limit"},
        "write_file": {"path", "content", "confirm_destructive"},
        "edit_file": {"path", "old_string", "new_string", "replace_all", "confirm_destructive"},
        "glob": {"pattern", "path"},
        "grep": {"pattern", "path", "glob"},
        "bash": {"command", "timeout", "sandbox", "background"},
        "job_output": {"job_id", "wait"},
        "job_stop": {"job_id"},
        "task": {"role", "prompt"},
        "skill": {"name", "file"},
        "web_fetch": {"url"},
        "answer": {"text"},
    }
    required = {n: set(s.get("required", [])) for n, s in specs.items()}
    assert required["edit_file"] == {"path", "old_string", "new_string"}
    assert required["read_file"] == {"path"} and required["bash"] == {"command"}
    assert "title" not in str(specs)


def test_a_same_size_rewrite_in_the_same_second_is_not_hidden_by_cached_bytecode(tmp_path):
    """A model fixes `a - b` to `a + b` right after the tests ran: same size, same second, and
    Python's __pycache__ (source size and mtime in whole seconds) still looked current — the
    next run imported the old code, and the fix seemed not to work."""
    import os
    import subprocess
    import sys
    import time

    from larik.agent.tools._files import write_regular

    calc = tmp_path / "calc.py"
    calc.write_text("def add(a, b):\n    return a - b\n")
    now = time.time()
    os.utime(calc, (now, now))  # written "just now", as by the model's first edit
    run = [sys.executable, "-c", "import calc; print(calc.add(2, 3))"]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    first = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert first.stdout.strip() == "-1" and list((tmp_path / "__pycache__").glob("calc.*.pyc"))
    os.utime(calc, (now, now))  # the same second still (a fast machine's whole turn)
    write_regular(calc, b"def add(a, b):\n    return a + b\n", "calc.py")
    second = subprocess.run(run, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert second.stdout.strip() == "5", second
