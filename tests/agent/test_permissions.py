"""Permission modes, allow/deny rules, the project root, and the Approver."""

from __future__ import annotations

import pytest

from larik.agent.events import Approval
from larik.config import Config, PermissionsConfig
from larik.llm.errors import ConfigError
from larik.shell import parse

from .conftest import approver, run, script


def calls(*specs):
    return script({"tool_calls": [{"name": n, "input": a} for n, a in specs]}, {"text": "ok"})


async def results(make_agent, *specs, **kw):
    agent = await make_agent(calls(*specs), **kw)
    await run(agent)
    return agent.messages[2].blocks, agent


def cfg(allow=(), deny=(), mode="ask"):
    return Config(permissions=PermissionsConfig(mode=mode, allow=list(allow), deny=list(deny)))


WRITE = ("write_file", {"path": "new.txt", "content": "hi\n"})
BASH = ("bash", {"command": "echo ran"})
READ = ("read_file", {"path": "calc.py"})


# -- modes ---------------------------------------------------------------------------------------
async def test_ask_mode_allows_reads_and_asks_for_writes_and_bash(make_agent, project):
    ok = approver(Approval(allow=True), Approval(allow=True))
    res, _ = await results(make_agent, READ, WRITE, BASH, permission_mode="ask", approver=ok)
    assert [r.is_error for r in res] == [False, False, False]
    assert [q.tool_name for q in ok.asked] == ["write_file", "bash"]
    assert (project / "new.txt").read_text() == "hi\n" and "ran" in res[2].content


async def test_a_denial_is_an_error_result_with_the_users_reason(make_agent, project):
    no = approver(Approval(allow=False, reason="use the staging dir"))
    res, _ = await results(make_agent, WRITE, permission_mode="ask", approver=no)
    assert res[0].is_error and "declined" in res[0].content
    assert res[0].content.endswith("use the staging dir") and not (project / "new.txt").exists()


async def test_edits_mode_allows_writes_and_asks_for_bash(make_agent):
    ok = approver(Approval(allow=True))
    res, _ = await results(make_agent, WRITE, BASH, permission_mode="edits", approver=ok)
    assert not any(r.is_error for r in res)
    assert [q.tool_name for q in ok.asked] == ["bash"]


@pytest.mark.parametrize(
    ("call", "rule"),
    [
        (WRITE, "write_file: new.txt"),
        (
            ("edit_file", {"path": "calc.py", "old_string": "-", "new_string": "+"}),
            "edit_file: calc.py",
        ),
        (BASH, "bash: echo ran*"),
    ],
)
async def test_the_print_mode_denial_suggests_a_rule_that_allows_that_call(make_agent, call, rule):
    res, _ = await results(make_agent, READ, call, permission_mode="ask", approver=None)
    assert res[1].is_error and f"rule such as {rule!r}" in res[1].content
    res, _ = await results(
        make_agent, READ, call, config=cfg(allow=[rule]), permission_mode="ask", approver=None
    )
    assert not res[1].is_error, res[1].content


async def test_yolo_mode_never_asks(make_agent):
    nobody = approver()
    res, _ = await results(make_agent, WRITE, BASH, permission_mode="yolo", approver=nobody)
    assert not any(r.is_error for r in res) and nobody.asked == []


async def test_without_an_approver_ask_denies_and_says_how_to_allow(make_agent, project):
    res, _ = await results(make_agent, READ, WRITE, BASH, permission_mode="ask", approver=None)
    assert not res[0].is_error
    for r in res[1:]:  # the model is told in no face's words (each face phrases it: refusal.py)
        assert r.is_error and "there is no one to ask." in r.content
        assert "permission mode, or add a permissions.allow rule such as" in r.content
        assert "--permission-mode" not in r.content and "print mode" not in r.content
    assert not (project / "new.txt").exists()


async def test_the_mode_comes_from_config_and_can_change_mid_session(make_agent):
    p = script(
        {"tool_calls": [{"name": "bash", "input": {"command": "true"}}]},
        {"text": "a"},
        {"tool_calls": [{"name": "bash", "input": {"command": "true"}}]},
        {"text": "b"},
    )
    agent = await make_agent(p, config=cfg(mode="ask"), permission_mode=None)
    assert agent.permission_mode == "ask"
    await run(agent)
    assert agent.messages[2].blocks[0].is_error
    agent.permission_mode = "yolo"
    await run(agent)
    assert not agent.messages[-2].blocks[0].is_error
    with pytest.raises(ConfigError):
        agent.permission_mode = "reckless"


async def test_edit_approval_shows_the_diff_and_what_always_covers(make_agent):
    ok = approver(Approval(allow=True))
    edit = ("edit_file", {"path": "calc.py", "old_string": "a - b", "new_string": "a + b"})
    await results(make_agent, READ, edit, permission_mode="ask", approver=ok)
    req = ok.asked[0]
    assert req.summary == "edit_file: calc.py" and "+    return a + b" in req.diff
    assert req.always == "file edits in this project"


# -- rules ---------------------------------------------------------------------------------------
async def test_an_allow_rule_lets_a_matching_command_run_without_asking(make_agent):
    nobody = approver()
    res, _ = await results(
        make_agent,
        ("bash", {"command": "printf ok || true"}),
        ("bash", {"command": "ls"}),
        config=cfg(allow=["bash: printf*", "bash: true"]),
        permission_mode="ask",
        approver=nobody,
    )
    assert not res[0].is_error
    assert res[1].is_error and [q.summary for q in nobody.asked] == ["bash: ls"]


async def test_an_allow_rule_does_not_cover_a_compound_or_subshell_command(make_agent):
    nobody = approver()
    await results(
        make_agent,
        ("bash", {"command": "pytest; rm -rf /tmp/x"}),
        ("bash", {"command": "pytest $(rm -rf /tmp/x)"}),
        config=cfg(allow=["bash: pytest*"]),
        permission_mode="ask",
        approver=nobody,
    )
    assert len(nobody.asked) == 2


async def test_a_deny_rule_wins_over_allow_and_yolo(make_agent, project):
    (project / ".env").write_text("SECRET=1\n")
    res, _ = await results(
        make_agent,
        ("read_file", {"path": ".env"}),
        ("bash", {"command": "echo ok && git push"}),
        config=cfg(allow=["bash: *"], deny=["read_file: .env", "bash: git push*"]),
        permission_mode="yolo",
    )
    assert (
        res[0].is_error and "permissions.deny" in res[0].content and "SECRET" not in res[0].content
    )
    assert res[1].is_error and "'bash: git push*'" in res[1].content


async def test_a_rule_naming_no_known_tool_is_a_config_error(make_agent):
    with pytest.raises(ValueError, match="names no known tool"):  # refused when the config is built
        cfg(allow=["git: push"])


@pytest.mark.parametrize(
    ("rule", "larik"),
    [
        ("Bash(rm -rf *)", "bash: rm -rf *"),  # Claude Code's spelling
        ("Read(.env)", "read_file: .env"),
        ("WebFetch(domain:docs.python.org)", "web_fetch: docs.python.org"),
        ("BASH: ls", "bash: ls"),
        ("bsh: ls", "bash: ls"),  # a typo
    ],
)
async def test_a_rule_in_another_spelling_is_refused_with_larik_s(make_agent, rule, larik):
    with pytest.raises(ValueError) as e:
        cfg(allow=[rule])
    assert f"write it as '{larik}'" in str(e.value)
    cfg(allow=[larik])  # and that spelling is accepted


async def test_allow_always_is_remembered_for_the_session(make_agent):
    ok = approver(Approval(allow=True, always=True), Approval(allow=False))
    res, _ = await results(
        make_agent,
        ("bash", {"command": "echo a || true"}),
        ("bash", {"command": "echo a || true"}),
        ("bash", {"command": "echo b || true"}),
        permission_mode="ask",
        approver=ok,
    )
    assert [q.summary for q in ok.asked] == ["bash: echo a || true", "bash: echo b || true"]
    assert ok.asked[0].always == "this exact command"
    assert [r.is_error for r in res] == [False, False, True]


async def test_allow_always_on_a_simple_command_covers_it_with_more_arguments_only(make_agent):
    ok = approver(Approval(allow=True, always=True), Approval(allow=False))
    res, _ = await results(
        make_agent,
        ("bash", {"command": "echo one"}),
        ("bash", {"command": "echo one two"}),
        ("bash", {"command": "echo two"}),
        permission_mode="ask",
        approver=ok,
    )
    assert len(ok.asked) == 2
    assert ok.asked[0].always == "'bash: echo one*' (echo one, alone or with more arguments)"
    assert "one two" in res[1].content and res[2].is_error


# -- the project root ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "tool,args",
    [
        ("read_file", {"path": "../secret.txt"}),
        ("read_file", {"path": "sub/../../secret.txt"}),
        ("write_file", {"path": "../secret.txt", "content": "pwned"}),
        ("edit_file", {"path": "../secret.txt", "old_string": "s", "new_string": "p"}),
        ("glob", {"pattern": "*", "path": ".."}),
        ("grep", {"pattern": "s", "path": ".."}),
    ],
)
async def test_file_tools_refuse_paths_outside_the_root_even_in_yolo(
    make_agent, project, tool, args
):
    secret = project.parent / "secret.txt"
    secret.write_text("secret\n")
    res, _ = await results(make_agent, (tool, args), permission_mode="yolo")
    assert res[0].is_error and "outside the project root" in res[0].content
    assert secret.read_text() == "secret\n"


async def test_an_absolute_path_outside_the_root_is_refused(make_agent, project):
    outside = project.parent / "abs.txt"
    outside.write_text("x\n")
    res, _ = await results(make_agent, ("read_file", {"path": str(outside)}))
    assert res[0].is_error and "outside the project root" in res[0].content


async def test_a_symlink_escaping_the_root_is_refused(make_agent, project):
    outside = project.parent / "elsewhere"
    outside.mkdir()
    (outside / "f.txt").write_text("far away\n")
    (project / "link").symlink_to(outside)
    res, _ = await results(
        make_agent,
        ("read_file", {"path": "link/f.txt"}),
        ("write_file", {"path": "link/new.txt", "content": "x"}),
    )
    assert all(r.is_error and "outside the project root" in r.content for r in res)
    assert not (outside / "new.txt").exists()


async def test_a_symlink_inside_the_root_is_fine(make_agent, project):
    (project / "alias.py").symlink_to(project / "calc.py")
    res, _ = await results(make_agent, ("read_file", {"path": "alias.py"}))
    assert not res[0].is_error and "def add" in res[0].content


async def test_an_allow_rule_can_open_a_path_outside_the_root(make_agent, project):
    shared = project.parent / "shared"
    shared.mkdir()
    (shared / "lib.py").write_text("X = 1\n")
    res, _ = await results(
        make_agent,
        ("read_file", {"path": "../shared/lib.py"}),
        ("read_file", {"path": "../secret.txt"}),
        config=cfg(allow=[f"read_file: {shared}/*"]),
    )
    assert not res[0].is_error and "X = 1" in res[0].content
    assert res[1].is_error


# -- compound commands ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("command", "parts"),
    [
        ("a && b || c; d | e & f", ["a", "b", "c", "d", "e", "f"]),
        ("python3 -c 'import calc; print(1)'", ["python3 -c 'import calc; print(1)'"]),
        ('echo "a && b" | grep "|"', ["echo 'a && b'", "grep '|'"]),
        (
            "find . -name '*.pyc' -exec rm {} \\; && ls",
            ["find . -name '*.pyc' -exec rm '{}' ';'", "rm '{}'", "ls"],
        ),
        ("pytest -q 2>&1 | tail -5", ["pytest -q", "tail -5"]),
        ("# run the tests\npytest -q", ["pytest -q"]),
    ],
)
def test_a_compound_command_is_read_into_its_simple_commands_as_bash_would(command, parts):
    assert [c.text for c in parse(command).commands] == parts


@pytest.mark.parametrize(
    "command",
    [
        "echo 'unclosed\ntouch pwned",  # an unclosed quote
        "echo hi # it's\ntouch pwned\necho '",  # a quote in a comment hides nothing
        "cat <<EOF\necho it's\nEOF\ntouch pwned\necho '",  # nor one in a heredoc
        "echo $'\\''\ntouch pwned\necho '",  # ANSI-C quoting
        'echo "${x:-\'"\'}"\ntouch pwned\necho "\'',  # quotes inside ${…}
    ],
)
async def test_a_rule_never_covers_a_command_whose_quoting_could_hide_another(
    make_agent, project, command
):
    nobody = approver()
    await results(
        make_agent,
        ("bash", {"command": command}),
        config=cfg(allow=["bash: echo*", "bash: cat*"]),
        permission_mode="ask",
        approver=nobody,
    )
    assert len(nobody.asked) == 1 and not (project / "pwned").exists()


async def test_allow_always_on_a_command_with_a_quoted_semicolon_covers_that_command(make_agent):
    ok = approver(Approval(allow=True, always=True), Approval(allow=False))
    res, _ = await results(
        make_agent,
        ("bash", {"command": "python3 -c 'import sys; print(1)'"}),
        ("bash", {"command": "python3 -c 'import sys; print(1)'"}),
        ("bash", {"command": "python3 -c 'print(2)'"}),
        permission_mode="ask",
        approver=ok,
    )
    assert len(ok.asked) == 2
    assert ok.asked[0].always.startswith(""""bash: python3 -c 'import sys; print(1)'*" (""")
    assert not res[1].is_error and "1" in res[1].content and res[2].is_error


async def test_a_quoted_substitution_is_text_and_an_allow_rule_covers_it(make_agent, project):
    # the old splitter refused any `$(`, even in single quotes; the parse tree knows it is text
    nobody = approver()
    res, _ = await results(
        make_agent,
        ("bash", {"command": "echo '$(touch pwned)'"}),
        config=cfg(allow=["bash: echo*"]),
        permission_mode="ask",
        approver=nobody,
    )
    assert nobody.asked == [] and "$(touch pwned)" in res[0].content
    assert not (project / "pwned").exists()
