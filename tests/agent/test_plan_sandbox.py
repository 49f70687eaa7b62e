"""Plan mode is read-only by construction (issue 22 item 9): besides the command table, its
commands run in the sandbox's ``read-only`` mode, so a command the table lets through that
writes anyway writes nothing. Real agent, real bubblewrap, real git. On the code before this
change (plan mode's commands ran in the session's workspace-write sandbox) both writes below
got through."""

from __future__ import annotations

import os
import subprocess
import time

import pytest

from larik import sandbox as sb
from larik.agent import plan
from larik.agent.permissions import PermissionPolicy
from larik.config import Config

from .conftest import run, script

pytestmark = pytest.mark.usefixtures("needs_bwrap")

PLAN = "1. Change calc.py.\n2. Run the tests."


def bash(command: str) -> dict:
    return {"name": "bash", "input": {"command": command}}


def results(agent) -> list[str]:
    return [b.content for m in agent.messages for b in m.blocks if b.type == "tool_result"]


def sandboxed() -> Config:
    return Config(sandbox={"mode": "workspace-write"})


async def test_a_command_the_table_lets_through_that_writes_writes_nothing(make_agent, git_project):
    """``git status`` is read-only by the table, yet it rewrites ``.git/index`` when a file's
    stat changed (git's optional index refresh): in plan mode it cannot."""
    subprocess.run(["git", "add", "calc.py"], cwd=git_project, check=True)
    index = git_project / ".git" / "index"
    before = index.read_bytes()
    later = time.time() + 5
    os.utime(git_project / "calc.py", (later, later))  # same content, a new stat
    agent = await make_agent(
        script({"tool_calls": [bash("git status --short")]}, {"text": PLAN}),
        permission_mode="plan",
        config=sandboxed(),
        approver=None,
    )
    await run(agent, "plan it")
    (out,) = results(agent)
    assert "calc.py" in out and "exit code 0" in out, out  # the command ran, and read
    assert index.read_bytes() == before  # and wrote nothing


async def test_a_gap_in_the_table_still_writes_nothing(make_agent, project, monkeypatch):
    """Were the table to let a write through, the sandbox would still refuse it."""
    monkeypatch.setattr(plan, "script_problem", lambda script: ("", []))
    agent = await make_agent(
        script({"tool_calls": [bash("touch planted.txt")]}, {"text": PLAN}),
        permission_mode="plan",
        config=sandboxed(),
        approver=None,
    )
    await run(agent, "plan it")
    (out,) = results(agent)
    assert not (project / "planted.txt").exists(), out
    assert "this may be the sandbox (mode read-only" in out and "plan mode" in out


async def test_leaving_plan_mode_gives_the_project_back(make_agent, project):
    agent = await make_agent(
        script({"tool_calls": [bash("touch made.txt")]}, {"text": "done"}),
        permission_mode="plan",
        config=sandboxed(),
    )
    agent.permission_mode = "yolo"  # the user accepted the plan
    await run(agent, "do it")
    assert (project / "made.txt").exists(), results(agent)


def test_the_policy_picks_the_sandbox_per_mode(project):
    box = sb.Sandbox(network=True)
    policy = PermissionPolicy(project, "plan", sandbox=box)
    assert policy.command_sandbox() == sb.Sandbox(mode="read-only", network=True)
    policy.mode = "ask"
    assert policy.command_sandbox() is box
    assert PermissionPolicy(project, "plan").command_sandbox() is None  # none to narrow
