"""A command file's shell line gets its arguments as data, never as code, in every quoting
context (issue 22 item 8): each line runs in real bash, with payloads that break out of each
kind of quoting, and none of them runs its ``touch``."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from larik.agent.events import Approval
from larik.command_catalog import CustomCommand
from larik.command_expand import expand
from larik.config import Config, user_config_path
from larik.custom_commands import command_turn, discover_commands
from tests.patience import WAIT

from .test_custom_commands import agent_for

PAYLOADS = [
    "$(touch PWNED)",
    "`touch PWNED`",
    "'; touch PWNED; '",
    '"; touch PWNED; "',
    "$(touch${IFS}PWNED)",  # the issue's: no space for a shell-quoting of words to split on
    "`touch${IFS}PWNED`",
]
#: context -> the line, and what it prints for the argument "a b" (what the line means)
CONTEXTS = {
    "bare": ("printf '<%s>' $ARGUMENTS", "<a><b>"),
    "bare $1": ("printf '<%s>' $1", "<a>"),
    "double quotes": ("printf '<%s>' \"x $ARGUMENTS y\"", "<x a b y>"),
    "single quotes": (
        "printf '<%s>' '$ARGUMENTS'",
        "<$ARGUMENTS>",
    ),  # bash: single quotes are literal
    "inside $(…)": ("printf '<%s>' $(printf '%s' $1)", "<a>"),
    "inside $(…) in double quotes": ("printf '<%s>' \"$(printf '%s' \"$ARGUMENTS\")\"", "<a b>"),
    "backticks": ("printf '<%s>' `printf '%s' $1`", "<a>"),
    "backticks in double quotes": ("printf '<%s>' \"`printf '%s' $ARGUMENTS`\"", "<ab>"),
    "here-string": ("cat <<< $ARGUMENTS", "a b"),
    "heredoc in bash -c": ("bash -c $'cat <<E\\n$1\\nE'", ""),  # the inner shell's own $1
    "assignment": ('x=$1; printf "<%s>" "$x"', "<a>"),
    "an option's value": ("printf '<%s>' --grep=$ARGUMENTS", "<--grep=a b>"),
}


def run_line(project: Path, template: str, arguments: str) -> str:
    """What the shell line ``template`` prints for ``arguments``: the command file's body is
    expanded as ``/cmd arguments`` does, and the line it asks for runs in real bash. (A line
    holding a backtick cannot be written in a command file — ``!`…``` ends there — so for
    those the line is made by ``shell_line`` itself, which must hold anyway.)"""
    import asyncio

    def bash(command: str) -> str:
        done = subprocess.run(
            ["bash", "-c", command], cwd=project, capture_output=True, text=True, timeout=WAIT
        )
        return done.stdout

    if "`" in template:
        from larik.command_shell_line import shell_line, words

        return bash(shell_line(template, arguments, words(arguments))).rstrip("\n")
    cmd = CustomCommand("cmd", project / "cmd.md", "user", "user", f"!`{template}`", "")

    async def shell(command: str) -> tuple[str, bool]:
        return bash(command), True

    return asyncio.run(expand(cmd, arguments, root=project, shell=shell)).prompt


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    return root


@pytest.mark.parametrize("context", list(CONTEXTS))
@pytest.mark.parametrize("payload", PAYLOADS)
def test_no_payload_runs_in_any_quoting_context(project, context, payload):
    template, _ = CONTEXTS[context]
    run_line(project, template, payload)
    assert not [p.name for p in project.iterdir() if "PWNED" in p.name]  # " PWNED" counts


@pytest.mark.parametrize("context", list(CONTEXTS))
def test_each_context_still_means_what_it_says(project, context):
    """Safe is not enough: the line gets the arguments where it asked for them (quoted words
    where bash splits, the text inside double quotes, nothing inside single quotes)."""
    template, printed = CONTEXTS[context]
    assert run_line(project, template, "a b") == printed


def test_a_payload_is_kept_whole_as_data(project):
    from larik.command_shell_line import words

    for payload in PAYLOADS:
        assert run_line(project, "printf '<%s>' \"$ARGUMENTS\"", payload) == f"<{payload}>"
        assert run_line(project, "printf '<%s>' $1", payload) == f"<{words(payload)[0]}>"


def test_the_words_are_the_users_words(project):
    """``$ARGUMENTS`` where words go is the words as typed (shell-style quoting), not split
    again on spaces nor globbed; ``$2`` is the second of them."""
    (project / "a.py").write_text("")
    assert run_line(project, "printf '<%s>' $ARGUMENTS", "'one two' *") == "<one two><*>"
    assert run_line(project, "printf '<%s>' $2", "x 'y z'") == "<y z>"


def test_arithmetic_with_a_subscript_in_an_argument_is_not_run(project):
    """In arithmetic bash evaluates a value as an expression, and a subscript in it runs its
    $(…): whatever quoting, such an argument does not reach such a line."""
    cmd_dir = user_config_path().parent / "commands"
    cmd_dir.mkdir(parents=True)
    (cmd_dir / "next.md").write_text("Next: !`echo $(( $1 + 1 ))`")
    ran: list[str] = []

    async def shell(command: str) -> tuple[str, bool]:
        ran.append(command)
        return "ran", True

    import asyncio

    cmd = discover_commands(project).find("next")
    assert cmd is not None
    out = asyncio.run(expand(cmd, "a[$(touch PWNED)]", root=project, shell=shell))
    assert ran == [] and "may do arithmetic" in out.notes[0]
    out = asyncio.run(expand(cmd, "41", root=project, shell=shell))  # a number still runs
    assert ran and run_line(project, "echo $(( $1 + 1 ))", "41") == "42"


async def test_the_reproduction_runs_no_touch_in_yolo(project):
    """The issue's reproduction, end to end: a command file with
    ``!`git log --grep="$ARGUMENTS"``` run as ``/cmd $(touch${IFS}X)`` in yolo mode."""
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    cmd_dir = user_config_path().parent / "commands"
    cmd_dir.mkdir(parents=True)
    (cmd_dir / "cmd.md").write_text('Log: !`git log --grep="$ARGUMENTS"`')
    config = Config()
    agent = await agent_for(project, config)
    cmd = discover_commands(project).find("cmd")
    [ev async for ev in command_turn(agent, cmd, "$(touch${IFS}X)", config)]
    await agent.close()
    assert not (project / "X").exists()


async def test_what_the_user_approves_is_what_runs(project):
    """In ask mode the approval shows the line that will run — the arguments' values in
    plain assignments, the line reading them — and that very text is what bash runs."""
    cmd_dir = user_config_path().parent / "commands"
    cmd_dir.mkdir(parents=True)
    (cmd_dir / "say.md").write_text('!`printf "%s" "$ARGUMENTS" > said.txt`')
    asked = []

    async def approver(req):
        asked.append(req)
        return Approval(allow=True)

    config = Config()
    agent = await agent_for(project, config, permission_mode="ask", approver=approver)
    cmd = discover_commands(project).find("say")
    [ev async for ev in command_turn(agent, cmd, "$(touch PWNED)", config)]
    await agent.close()
    [req] = asked
    expected = 'LARIK_ARGUMENTS=\'$(touch PWNED)\'; printf "%s" "${LARIK_ARGUMENTS}" > said.txt'
    assert req.tool_input["command"] == expected
    assert (project / "said.txt").read_text() == "$(touch PWNED)"
    assert not (project / "PWNED").exists()


async def test_deny_rules_see_the_line_that_runs(project):
    cmd_dir = user_config_path().parent / "commands"
    cmd_dir.mkdir(parents=True)
    (cmd_dir / "log.md").write_text('!`git log --grep="$1"` done')
    config = Config(permissions={"deny": ["bash: git log*"]})
    agent = await agent_for(project, config)
    cmd = discover_commands(project).find("log")
    events = [ev async for ev in command_turn(agent, cmd, "x", config)]
    await agent.close()
    assert any("denied by the rule 'bash: git log*'" in e.text for e in events)
