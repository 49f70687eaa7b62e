"""Plan mode: reads, searches and read-only commands run; nothing else does, whatever the model
tries and whatever the allow rules say; the turn ends with a plan."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from larik.agent import plan
from larik.agent.events import Approval
from larik.agent.permissions import PermissionPolicy
from larik.agent.tools import get_tool
from larik.config import Config, PermissionsConfig

from .conftest import E, approver, of, run, script

BASH = get_tool("bash")


def decide(root: Path, command: str, *, allow=(), deny=()):
    assert BASH is not None
    policy = PermissionPolicy(root, "plan", list(allow), list(deny))
    return policy.decide(BASH, BASH.args(command=command))


def verdict(root: Path, command: str, **kw) -> str:
    return decide(root, command, **kw).verdict


# -- the read-only table ---------------------------------------------------------------------------
READ_ONLY = [
    "ls",
    "ls -la src",
    "cat calc.py",
    "head -n 5 calc.py | wc -l",
    "grep -n add calc.py",
    "grep -rn add .",
    "rg add",
    "find . -name '*.py'",
    "git status",
    "git log --oneline -5",
    "git diff HEAD~1 -- calc.py",
    "git show HEAD:calc.py",
    "git branch -a",
    "sort calc.py | uniq -c",
    "echo hi > /dev/null",
    "tree -L 2",
    "wc -l calc.py 2>/dev/null",
]


@pytest.mark.parametrize("command", READ_ONLY)
def test_read_only_commands_run_unasked(project, command):
    d = decide(project, command)
    assert d.verdict == "allow", d.reason


def test_every_command_in_the_table_runs_bare_and_every_dangerous_option_is_refused(project):
    for name, spec in plan.READ_ONLY.items():
        specs = spec.subcommands.items() if spec.subcommands else [("", spec)]
        for sub, s in specs:
            head = f"{name} {sub}".strip()
            bare = "ask" if name == "cd" else "allow"  # after cd, paths cannot be checked
            assert verdict(project, head) == bare, head
            for opt in s.forbidden:
                cmd = f"{head} {opt}=x" if opt.startswith("--") else f"{head} {opt} x"
                assert verdict(project, cmd) == "deny", cmd
            for letter in s.letters:
                assert verdict(project, f"{head} -{letter} out") == "deny", (head, letter)
                assert verdict(project, f"{head} -a{letter}") == "deny", (head, letter)  # bundled
            if s.operands is not None:
                cmd = head + " a" * (s.operands + 1)
                assert verdict(project, cmd) == "deny", cmd


# Each one is a way a model (or a file planted in the repository) could change something while
# looking like it only reads.
NOT_READ_ONLY = [
    "touch x",
    "rm -rf src",
    "ls; rm -rf src",
    "ls && touch x",
    "cat $(touch x)",
    "echo `touch x`",
    "echo hi > notes.txt",
    "cat calc.py >> calc.py",
    "cat calc.py | tee copy.py",
    "find . -delete",
    "find . -name '*.py' -exec rm {} ;",
    "find . -fprint out.txt",
    "rg --pre=./evil.sh add",
    "rg --pre ./evil.sh add",
    "rg add *",  # a file named --pre=./evil.sh in the project would become an option
    "sort -o calc.py calc.py",
    "sort -ro calc.py calc.py",
    "sort --output=calc.py calc.py",
    "uniq calc.py out.txt",
    "tree -o out.txt",
    "git -c core.pager=./evil.sh log",
    "git --no-pager log",
    "git stash",
    "git commit -m x",
    "git checkout -- calc.py",
    "git branch newbranch",
    "git branch -D main",
    "git tag v1",
    "git diff --output=calc.py",
    "git diff --ext-diff",
    "git grep -O add",
    "./ls",
    "/tmp/evil/ls",
    "PATH=. ls",
    "xargs rm < list.txt",
    "bash -c 'rm -rf src'",
    "sh -c 'touch x'",
    "eval ls",
    "$CMD calc.py",
    "python -c 'print(1)'",
    "sed -i s/a/b/ calc.py",
    "pytest",
]


@pytest.mark.parametrize("command", NOT_READ_ONLY)
def test_commands_that_are_not_read_only_are_refused_with_a_reason(project, command):
    d = decide(project, command)
    assert d.verdict == "deny", command
    assert "plan mode" in d.reason and "plan" in d.reason.split("plan mode", 1)[1]


@pytest.mark.parametrize("allow", [["bash: *"], ["bash: touch*"], ["bash: git*"]])
def test_allow_rules_do_not_widen_plan_mode(project, allow):
    assert verdict(project, "touch x", allow=allow) == "deny"
    assert verdict(project, "git commit -m x", allow=allow) == "deny"


def test_deny_rules_still_hold(project):
    assert verdict(project, "git log", deny=["bash: git log*"]) == "deny"


# -- what a read-only command reads -----------------------------------------------------------------
@pytest.mark.parametrize(
    "command",
    [
        "cat /etc/passwd",
        "cat ~/.ssh/id_rsa",
        "cat ../secret.txt",
        "grep -f /etc/shadow calc.py",
        "cat $HOME/.aws/credentials",
        "cd /etc && cat passwd",
    ],
)
def test_a_read_only_command_reading_outside_the_project_is_asked_about(project, command):
    assert verdict(project, command) == "ask", command


def test_a_link_in_the_project_pointing_outside_is_asked_about(project, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("s3cret")
    os.symlink(secret, project / "innocent.txt")
    assert verdict(project, "cat innocent.txt") == "ask"


def test_a_deny_rule_on_reading_holds_for_read_only_commands(project):
    deny = ["read_file: .env"]
    d = decide(project, "cat .env", deny=deny)
    assert d.verdict == "deny" and "read_file: .env" in d.reason
    # a walk may meet the file: the user decides, and no hook can answer for them
    d = decide(project, "grep -r KEY .", deny=deny)
    assert d.verdict == "ask" and d.firm
    assert verdict(project, "cat calc.py", deny=deny) == "allow"


# -- the other tools -------------------------------------------------------------------------------
def _decide_tool(root: Path, name: str, allow=(), **args):
    tool = get_tool(name)
    assert tool is not None
    return PermissionPolicy(root, "plan", list(allow)).decide(tool, tool.args(**args))


def test_edits_and_worker_subagents_are_refused_even_with_an_allow_rule(project):
    allow = ["write_file: *", "edit_file: *"]
    w = _decide_tool(project, "write_file", allow, path="new.py", content="x")
    e = _decide_tool(project, "edit_file", allow, path="calc.py", old_string="-", new_string="+")
    assert w.verdict == e.verdict == "deny" and "plan mode" in w.reason
    assert _decide_tool(project, "task", role="worker", prompt="fix it").verdict == "deny"
    assert _decide_tool(project, "task", role="explore", prompt="look").verdict == "allow"
    assert _decide_tool(project, "read_file", path="calc.py").verdict == "allow"
    assert _decide_tool(project, "grep", pattern="add").verdict == "allow"


# -- the agent ------------------------------------------------------------------------------------
PLAN = "1. In calc.py change `a - b` to `a + b`.\n2. Run the tests."


async def test_plan_mode_refuses_an_edit_and_a_command_and_ends_with_the_plan(make_agent, project):
    model = script(
        {
            "tool_calls": [
                {"name": "read_file", "input": {"path": "calc.py"}},
                {
                    "name": "edit_file",
                    "input": {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"},
                },
                {"name": "bash", "input": {"command": "touch made.txt"}},
                {"name": "bash", "input": {"command": "grep -n return calc.py"}},
            ]
        },
        {"text": PLAN},
    )
    yes = approver(*[Approval(allow=True)] * 5)
    agent = await make_agent(model, permission_mode="plan", approver=yes)
    events = await run(agent, "fix add")
    results = agent.messages[2].blocks
    assert [r.is_error for r in results] == [False, True, True, False]
    assert "plan mode" in results[1].content and "plan mode" in results[2].content
    assert "return a - b" in results[3].content
    assert (project / "calc.py").read_text() == "def add(a, b):\n    return a - b\n"
    assert not (project / "made.txt").exists()
    assert yes.asked == []  # refused outright, never offered to the user
    end = of(events, E.TURN_END)[-1]
    assert end.data["plan"] == PLAN
    # the model was told it is planning; the prompt as typed is kept apart
    user = agent.messages[0]
    assert user.blocks[0].text == "fix add" and user.blocks[-1].text == plan.NOTE
    assert agent.checkpoints.turns[-1].prompt == "fix add"


async def test_after_the_plan_is_accepted_the_next_turn_edits(make_agent, project):
    edit = {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"}
    model = script(
        {"text": PLAN},
        {"tool_calls": [{"name": "read_file", "input": {"path": "calc.py"}}]},
        {"tool_calls": [{"name": "edit_file", "input": edit}]},
        {"text": "Done."},
    )
    agent = await make_agent(model, permission_mode="plan")
    first = await run(agent, "fix add")
    assert of(first, E.TURN_END)[-1].data["plan"] == PLAN
    agent.permission_mode = "edits"
    second = await run(agent, plan.accepted("edits"))
    assert "plan" not in of(second, E.TURN_END)[-1].data
    assert "return a + b" in (project / "calc.py").read_text()
    assert plan.NOTE not in [b.text for b in agent.messages[-3].blocks]


def test_plan_is_the_strictest_mode_for_a_project():
    from larik import trust

    assert trust.MODE_STRICTNESS[0] == "plan"
    assert Config(permissions=PermissionsConfig(mode="plan")).permissions.mode == "plan"
