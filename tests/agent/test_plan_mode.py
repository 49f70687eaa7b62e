"""Plan mode: reads, searches and read-only commands run; nothing else does, whatever the model
tries and whatever the allow rules say; the turn ends with a plan."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from larik.agent import plan
from larik.agent.events import Approval
from larik.agent.permissions import PermissionPolicy
from larik.agent.tools import get_tool
from larik.config import Config, PermissionsConfig
from tests.patience import WAIT

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
    "xxd -l 64 calc.py",  # -l's value is not a second operand
    "uniq -f 1 calc.py",
    "LC_ALL=C sort -k 2 calc.py",
    "nice cat calc.py",
    "timeout 5 git log --oneline",
    "git log --no-ext-diff --oneline",
    "git grep --or -e add -e sub",
    "sort --check calc.py",
    "rg --pretty add",
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
            for cmd in dangerous_forms(head, s):
                assert verdict(project, cmd) == "deny", cmd
            if s.operands is not None:
                cmd = head + " a" * (s.operands + 1)
                assert verdict(project, cmd) == "deny", cmd


def dangerous_forms(head: str, s: plan.ReadOnly) -> list[str]:
    """Every way the table's dangerous options can be written: a long one in each abbreviation
    (GNU getopt and git's parse-options take any unambiguous prefix), its value attached or in
    the next word; a short one alone, in a cluster, with its value attached."""
    out = []
    for opt in s.forbidden:
        if not opt.startswith("--"):
            out.append(f"{head} {opt} x")  # find's -exec: the exact word
            continue
        for k in range(3, len(opt) + 1):
            out += [f"{head} {opt[:k]}=x", f"{head} {opt[:k]} x"]
    for letter in s.letters:
        out += [f"{head} -{letter} out", f"{head} -a{letter}", f"{head} -n{letter} out"]
        out += [f"{head} -{letter}out", f"{head} -- -{letter} out"]
    return out


def test_every_walking_option_is_seen_in_every_abbreviation(project):
    deny = ["read_file: .env"]
    for name, spec in plan.READ_ONLY.items():
        for opt in spec.walk_options:
            for k in range(3, len(opt) + 1):
                d = decide(project, f"{name} {opt[:k]} KEY .", deny=deny)
                assert d.verdict == "ask" and d.firm, (name, opt[:k])
        for letter in spec.walk_letters:
            d = decide(project, f"{name} -{letter} KEY .", deny=deny)
            assert d.verdict == "ask" and d.firm, (name, letter)


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
    # issue 22 item 9: each ran unasked in plan mode before (checked against 754bfcc)
    "sort --outp=F calc.py",  # --output in an abbreviation: it wrote F
    "sort -S 64k --compress-prog=sh calc.py",  # it ran sh
    "git grep --open-files='touch X;' -l add",  # it ran touch
    "sort --o=F calc.py",
    "sort --output F calc.py",  # held before, as the next one
    "sort -no F calc.py",  # -o in a cluster
    "sort -T /tmp calc.py",  # its temporary files
    "tree -R -H . -L 1",  # writes 00Tree.html in every folder
    "git blame --output=F calc.py",  # every git command that reads revisions takes --output
    "git rev-list --output=F HEAD",
    "git shortlog --output=F HEAD",
    "git log --show-signature",  # runs gpg
    "git diff --ext=x",
    "echo --pre=./evil.sh | xargs rg add",  # xargs adds arguments from its input
    "RIPGREP_CONFIG_PATH=./evil.cfg rg add",  # the config names --pre=./evil.sh
    "env RIPGREP_CONFIG_PATH=./evil.cfg rg add",
    "GIT_EXTERNAL_DIFF=./evil.sh git diff",  # held before (GIT_*), as the last five: kept so
    "echo | xargs --process-slot-var=PATH ls",  # PATH for ls: ./0/ls
    "flock lockfile cat calc.py",  # now that flock is a wrapper: it creates its file
    "time -o F ls",  # GNU time writes F
    "sudo cat calc.py",
    "watch ls",
    "nice rm -rf src",  # a wrapper runs what it runs
]


@pytest.mark.parametrize("command", NOT_READ_ONLY)
def test_commands_that_are_not_read_only_are_refused_with_a_reason(project, command):
    d = decide(project, command)
    assert d.verdict == "deny", command
    text = d.refusal().text()  # what the model is told: the reason, then what to do instead
    assert "plan mode" in text and "plan" in text.split("plan mode", 1)[1]


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
        "env -C /etc cat passwd",  # env -C changes directory
        "ls | xargs cat",  # what xargs adds is known only when it runs
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


def test_a_recursive_grep_near_a_read_deny_rule_is_asked_about_in_every_spelling(project):
    (project / ".env").write_text("KEY=1\n")
    deny = ["read_file: .env"]
    for cmd in (
        "grep --recursive KEY .",
        "grep --rec KEY .",
        "grep -d recurse KEY .",
        "grep --directories=recurse KEY .",
        "ls --recursive",
        "diff -r a b",
    ):
        d = decide(project, cmd, deny=deny)
        assert d.verdict == "ask" and d.firm, cmd


# -- real programs: what the table refuses does write or run -------------------------------------
def test_the_refused_abbreviations_write_and_run_for_real(git_project):
    """Shown on the programs themselves, so the table's entries are no guess."""
    root = git_project
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
    }
    env["GIT_COMMITTER_EMAIL"] = "t@t"
    subprocess.run(["git", "add", "."], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "x"], cwd=root, check=True, env=env)
    commands = {
        "sort --outp=F1 calc.py": "F1",
        "git grep --open-files='touch X2;' -l add": "X2",
        "git rev-list --output=F3 HEAD": "F3",
        "git blame --output=F4 calc.py": "F4",
    }
    for cmd, made in commands.items():
        assert verdict(root, cmd) == "deny", cmd
        subprocess.run(["bash", "-c", cmd], cwd=root, env=env, capture_output=True, timeout=WAIT)
        assert (root / made).exists(), cmd


async def test_plan_mode_runs_none_of_the_abbreviations(make_agent, git_project):
    commands = ["sort --outp=F calc.py", "sort -S 64k --compress-prog=sh calc.py"]
    commands += ["git grep --open-files='touch X;' -l add", "echo --o=G | xargs sort calc.py"]
    model = script(
        {"tool_calls": [{"name": "bash", "input": {"command": c}} for c in commands]},
        {"text": PLAN},
    )
    agent = await make_agent(model, permission_mode="plan", approver=None)
    await run(agent, "plan it")
    results = agent.messages[2].blocks
    assert all(r.is_error and "plan mode" in r.content for r in results)
    assert sorted(p.name for p in git_project.iterdir()) == [".git", "calc.py"]


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


async def test_a_plan_turn_read_back_from_the_transcript_is_the_prompt_as_typed(
    make_agent, project
):
    """Issue 43 item 5's class: /rewind in a resumed session read the prompt back from the
    message, plan mode's note and all (as it read an ``@file``'s contents)."""
    from larik.agent.rewind import turns_of
    from larik.agent.transcript import load_transcript

    agent = await make_agent(script({"text": PLAN}), permission_mode="plan")
    await run(agent, "fix add")
    assert agent.transcript_path is not None
    records = load_transcript(agent.transcript_path).records
    assert [t.prompt for t in turns_of(records)] == ["fix add"]
