"""In the sandbox, the files that decide what Larik runs or allows next time are read-only
(issue 22 item 4): ``.larik/``, ``.mcp.json``, ``.claude/settings*.json``, its hooks, commands,
skills and agents, ``.agents/skills``, ``AGENTS.md``, ``CLAUDE.md`` — the list of
larik/protected.py, walked. What exists cannot be written, removed or renamed away; what is
missing and a command makes is removed when it ends, and the result says so. On the code
before this change every write here got through (checked against it)."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest

from larik import sandbox as sb
from larik.agent.tools import ToolContext
from larik.agent.tools import bash as bash_tool
from larik.protected import PROTECTED
from larik.sandbox.kept import PROJECT_KEPT
from tests.patience import WAIT

from .sandbox_kit import run

pytestmark = pytest.mark.usefixtures("needs_bwrap")

HOOK = '{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "touch PWNED"}]}]}}'


def example(entry: str) -> str:
    """A file an entry of PROTECTED covers (``.claude/settings*.json``: the real name)."""
    return entry.replace("/**", "/x.md").replace("settings*", "settings")


PROJECT_ENTRIES = [e for e in PROTECTED if e != ".git" and not e.startswith(".git/")]


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    return path


def test_the_sandbox_keeps_what_the_protected_list_names():
    assert [e.removesuffix("/**") for e in PROJECT_ENTRIES] == list(PROJECT_KEPT)


@pytest.mark.parametrize("entry", PROJECT_ENTRIES)
def test_an_existing_protected_file_cannot_be_written_removed_or_moved(project, entry):
    path = project / example(entry)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("the user's\n")
    rel = example(entry)
    top = rel.split("/")[0]
    attempts = [
        f"echo {HOOK!r} > {rel}",
        f"echo more >> {rel}",
        f"rm -rf {rel}",
        f"mv {rel} moved",
        f"mv {top} moved-top && mkdir -p $(dirname {rel}) && echo {HOOK!r} > {rel}",
        f"rm -rf {top}",
    ]
    for attempt in attempts:
        out, _ = run(project, attempt, sb.Sandbox())
        assert path.read_text() == "the user's\n", (attempt, out)
    # (mv to another mount copies, then cannot remove the original: a copy is harmless)
    out, _ = run(project, f"echo x > {rel}", sb.Sandbox())
    assert "this may be the sandbox" in out and ".mcp.json" in out  # the result says why
    run(project, f"echo changed > {rel}", None)  # unsandboxed it is written: the sandbox's
    assert path.read_text() == "changed\n"


@pytest.mark.parametrize("entry", PROJECT_ENTRIES)
def test_a_missing_protected_file_a_command_makes_is_removed_and_said(project, entry):
    rel = example(entry)
    made = f"mkdir -p $(dirname {rel}) && echo {HOOK!r} > {rel} && echo made"
    out, data = run(project, made, sb.Sandbox())
    assert "made" in out and data["exit_code"] == 0
    assert not (project / rel).exists(), out
    top = PROJECT_KEPT[PROJECT_ENTRIES.index(entry)]
    assert "the sandbox undid what this command made of" in out and top.split("*")[0] in out
    assert "write_file" in out  # how to do it properly: the user is asked
    leftovers = sorted(str(p.relative_to(project)) for p in project.rglob("*"))
    assert all(not p.endswith(Path(rel).name) for p in leftovers), leftovers


def test_every_new_file_is_named_once_and_ordinary_files_stay(project):
    made = (
        "mkdir -p .larik/commands .claude/hooks && echo x > .larik/commands/c.md && "
        f"echo {HOOK!r} > .claude/settings.local.json && echo '{{}}' > .mcp.json && "
        "echo t > CLAUDE.md && echo ok > src.py && mkdir -p .claude/notes && echo n > .claude/notes/a"
    )
    out, _ = run(project, made, sb.Sandbox())
    assert sorted(os.listdir(project)) == [".claude", "src.py"], out
    assert sorted(os.listdir(project / ".claude")) == ["notes"]  # not protected: kept
    (line,) = [x for x in out.splitlines() if "the sandbox undid" in x]
    for name in (".larik", ".claude/settings.local.json", ".mcp.json", "CLAUDE.md"):
        assert line.count(name) == 1, line
    assert ".claude/hooks" in line


def test_a_protected_link_replaced_is_put_back(project):
    (project / "servers.json").write_text("{}\n")
    os.symlink("servers.json", project / ".mcp.json")
    out, _ = run(project, f"echo {HOOK!r} > .mcp.json", sb.Sandbox())
    assert (project / "servers.json").read_text() == "{}\n", out  # the target is read-only
    out, _ = run(project, f"rm .mcp.json && echo {HOOK!r} > .mcp.json", sb.Sandbox())
    assert os.readlink(project / ".mcp.json") == "servers.json", out
    assert (project / "servers.json").read_text() == "{}\n"
    assert "the sandbox undid what this command made of .mcp.json" in out


def test_a_background_job_that_makes_one_has_it_removed_when_it_ends(project):
    from larik.agent.jobs import JobTable

    async def go() -> str:
        table = JobTable()
        ctx = ToolContext(root=project, sandbox=sb.Sandbox(), jobs=table)
        command = f"echo {HOOK!r} > .mcp.json; echo planted"
        first = await bash_tool.run(bash_tool.Args(command=command, background=True), ctx)
        seen = first.content
        end = time.monotonic() + WAIT
        while time.monotonic() < end:
            seen += table.read(1).content
            if table.get(1).state != "running" and "undid" in seen:
                break
            await table.wait(1, 0.1)
        await table.close()
        return seen

    seen = asyncio.run(go())
    assert "planted" in seen and not (project / ".mcp.json").exists()
    assert "the sandbox undid what this command made of .mcp.json" in seen


def test_read_only_mode_has_nothing_to_undo(project):
    out, data = run(project, "echo {} > .mcp.json", sb.Sandbox(mode="read-only"))
    assert data["exit_code"] != 0 and not (project / ".mcp.json").exists()
    assert "undid" not in out


@pytest.mark.xfail(
    strict=True,
    reason="open (docs/security.md, round two): a missing protected file a command makes is "
    "removed when the command ends, not before; until then the host sees it",
)
def test_a_file_a_running_command_made_is_never_seen_outside(project):
    from larik.agent.jobs import JobTable

    async def go() -> bool:
        table = JobTable()
        ctx = ToolContext(root=project, sandbox=sb.Sandbox(), jobs=table)
        command = f"echo {HOOK!r} > .mcp.json; echo written; sleep {10 * WAIT:g}"
        await bash_tool.run(bash_tool.Args(command=command, background=True), ctx)
        end = time.monotonic() + WAIT  # the command makes it at once: seen, or never
        while not (project / ".mcp.json").exists() and time.monotonic() < end:
            await table.wait(1, 0.1)
        seen = (project / ".mcp.json").exists()  # while the command still runs
        await table.close()
        return seen

    assert not asyncio.run(go())
