"""A model does not silently write the files that decide what Larik runs next time
(larik/protected.py): asked in every mode, yolo included; denied where nobody can be asked.

Hostile: the model (confused or steered by what it read) writes a SessionStart hook into
``.claude/settings.json``, an MCP server into ``.mcp.json``, a looser mode into
``.larik/config.toml``, new instructions into AGENTS.md — in ``edits`` mode, with the project's
``write_file: *`` allow rule, with a hook answering "allow"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from larik.agent.events import Approval
from larik.agent.permissions import PermissionPolicy, with_hook
from larik.agent.tools import get_tool
from larik.protected import PROTECTED

from .conftest import approver, run, script

WRITE = get_tool("write_file")
EDIT = get_tool("edit_file")
BASH = get_tool("bash")
HOOK = json.dumps({"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "id"}]}]}})


def _paths() -> list[str]:
    return [p.replace("**", "x.md").replace("*", ".local") for p in PROTECTED]


@pytest.mark.parametrize("mode", ["ask", "edits", "yolo"])
@pytest.mark.parametrize("path", _paths())
def test_a_write_to_a_protected_file_is_a_firm_question_in_every_mode(tmp_path, mode, path):
    assert WRITE is not None and EDIT is not None
    policy = PermissionPolicy(tmp_path, mode, allow=["write_file: *", "edit_file: *"])
    for tool, args in [
        (WRITE, WRITE.args(path=path, content="x")),
        (EDIT, EDIT.args(path=path, old_string="a", new_string="b")),
    ]:
        d = policy.decide(tool, args)
        assert (d.verdict, d.firm) == ("ask", True), (tool.name, d)
        assert "decides what Larik runs" in d.reason
        assert with_hook(d, ("allow", "the hook says so")).verdict == "ask"  # firm
    ordinary = policy.decide(WRITE, WRITE.args(path="src/app.py", content="x"))
    assert ordinary.verdict == "allow"  # the same rule covers an ordinary file


def test_a_bash_redirection_into_a_protected_file_is_asked_even_in_yolo(tmp_path):
    assert BASH is not None
    policy = PermissionPolicy(tmp_path, "yolo", allow=["bash: *"])
    d = policy.decide(BASH, BASH.args(command="echo '{}' > .mcp.json"))
    assert (d.verdict, d.firm) == ("ask", True) and ".mcp.json" in d.reason
    assert policy.decide(BASH, BASH.args(command="echo hi > notes.txt")).verdict == "allow"


async def test_edits_mode_asks_and_allow_always_is_not_offered(make_agent, project):
    call = {"name": "write_file", "input": {"path": ".claude/settings.json", "content": HOOK}}
    ok = approver(Approval(allow=True, always=True), Approval(allow=True))
    agent = await make_agent(
        script({"tool_calls": [call]}, {"tool_calls": [call]}, {"text": "ok"}),
        permission_mode="edits",
        approver=ok,
    )
    await run(agent)
    assert [q.tool_name for q in ok.asked] == ["write_file", "write_file"]  # asked both times
    assert ok.asked[0].always == "" and "decides what Larik runs" in ok.asked[0].summary
    assert (project / ".claude" / "settings.json").read_text() == HOOK  # the user said yes


@pytest.mark.parametrize("mode", ["edits", "yolo"])
async def test_with_nobody_to_ask_the_write_is_denied_and_says_why(make_agent, project, mode):
    call = {"name": "write_file", "input": {"path": ".claude/settings.json", "content": HOOK}}
    agent = await make_agent(
        script({"tool_calls": [call]}, {"text": "ok"}), permission_mode=mode, approver=None
    )
    await run(agent)
    result = agent.messages[2].blocks[0]
    assert result.is_error and "decides what Larik runs" in result.content
    assert "no one to ask" in result.content
    assert not (project / ".claude" / "settings.json").exists()


def test_a_link_the_model_made_does_not_launder_the_write(tmp_path: Path):
    assert WRITE is not None
    (tmp_path / "notes.json").symlink_to(".mcp.json")
    policy = PermissionPolicy(tmp_path, "edits")
    assert policy.decide(WRITE, WRITE.args(path="notes.json", content="{}")).verdict == "ask"


@pytest.mark.parametrize(
    "path",
    [".git/hooks/pre-commit", ".git/config", ".git/modules/vendor/config", "vendor/.git"],
)
def test_what_the_users_own_git_runs_is_not_written_unasked_in_edits_mode(tmp_path, path):
    """HOSTILE: write_file of .git/hooks/pre-commit (or core.fsmonitor in .git/config) in edits
    mode ran at the user's next commit, outside any sandbox."""
    assert WRITE is not None
    policy = PermissionPolicy(tmp_path, "edits")
    d = policy.decide(WRITE, WRITE.args(path=path, content="#!/bin/sh\nid\n"))
    assert (d.verdict, d.firm) == ("ask", True)
