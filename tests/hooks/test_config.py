"""The [hooks] table: both shapes, one-line errors naming the file, Claude Code's matchers."""

from __future__ import annotations

import pytest

from larik.config import ConfigError, load_config, user_config_path
from larik.hooks.config import HookEntry, HooksConfig, tool_names


def write_user(text: str):
    path = user_config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_the_flat_and_the_nested_claude_code_shapes_both_load(tmp_path):
    path = write_user(
        '[[hooks.PreToolUse]]\nmatcher = "bash"\ncommand = "a.sh"\ntimeout = 30\n\n'
        '[[hooks.PreToolUse]]\nmatcher = "Edit|Write"\n'
        'hooks = [{type = "command", command = "b.sh"}, {command = "c.sh", timeout = 5}]\n'
    )
    hooks = load_config(tmp_path).hooks
    flat, nested = hooks.PreToolUse
    assert [(c.command, c.timeout) for c in flat.commands()] == [("a.sh", 30)]
    assert [(c.command, c.timeout) for c in nested.commands()] == [("b.sh", 60), ("c.sh", 5)]
    assert flat.source == str(path)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        (
            '[[hooks.PreTooluse]]\ncommand = "x"\n',
            "unknown hook event 'PreTooluse' (did you mean 'PreToolUse'?)",
        ),
        ('[[hooks.SubagentStart]]\ncommand = "x"\n', "'SubagentStart' is not one Larik runs"),
        ('[[hooks.Stop]]\nmatcher = "("\ncommand = "x"\n', "not a regular expression"),
        ("[[hooks.Stop]]\ntimeout = 5\n", "either command or hooks"),
        ('[[hooks.Stop]]\ncommand = "x"\nhooks = [{command = "y"}]\n', "either command or hooks"),
        ('[[hooks.Stop]]\ncommand = "x"\ntimeout = 5000\n', "should be at most 600"),
        ('[[hooks.Stop]]\ncommand = "x"\nmatchr = "bash"\n', "matchr"),
        ('[[hooks.Stop]]\nhooks = [{type = "prompt", command = "y"}]\n', "command"),
    ],
)
def test_a_bad_hooks_table_is_one_line_naming_the_file(tmp_path, text, needle):
    path = write_user(text)
    with pytest.raises(ConfigError) as e:
        load_config(tmp_path)
    message = str(e.value)
    assert message.startswith(f"{path}: hooks") and needle in message and "\n" not in message


def entry(matcher: str) -> HookEntry:
    return HookEntry(matcher=matcher, command="x")


@pytest.mark.parametrize(
    ("matcher", "tool", "seen"),
    [
        ("", "bash", "bash"),
        ("*", "edit_file", "edit_file"),
        ("bash", "bash", "bash"),
        ("Bash", "bash", "Bash"),  # Claude Code's name: the hook is told that name
        ("Edit|Write", "edit_file", "Edit"),
        ("Edit|Write", "write_file", "Write"),
        ("MultiEdit", "edit_file", "MultiEdit"),
        ("Read|Grep|Glob", "grep", "Grep"),
        ("write_file|edit_file", "edit_file", "edit_file"),
        ("mcp__.*", "mcp__github__create_issue", "mcp__github__create_issue"),
        ("mcp__github__.*", "mcp__github__create_issue", "mcp__github__create_issue"),
        (".*_file", "read_file", "read_file"),
        ("^Ba", "bash", "Bash"),
        ("WebFetch", "web_fetch", "WebFetch"),
    ],
)
def test_matchers_work_with_larik_and_claude_code_names(matcher, tool, seen):
    assert entry(matcher).matched_name(tool_names(tool)) == seen


@pytest.mark.parametrize(
    ("matcher", "tool"),
    [
        ("Bash", "edit_file"),
        ("bash", "bash_extra"),  # a plain name is exact, not a prefix
        ("Edit", "write_file"),
        ("Write", "edit_file"),
        ("WebFetch", "bash"),
        ("mcp__github__.*", "mcp__gitlab__x"),
        ("bash", "Bash"),  # case sensitive: Larik's names are lower case, Claude Code's not
    ],
)
def test_matchers_do_not_match_other_tools(matcher, tool):
    assert entry(matcher).matched_name(tool_names(tool)) is None


def test_a_trusted_projects_hooks_run_after_the_users_and_never_replace_them(tmp_path):
    user = write_user('[[hooks.PreToolUse]]\nmatcher = "bash"\ncommand = "mine.sh"\n')
    (tmp_path / ".git").mkdir()
    project = tmp_path / ".larik" / "config.toml"
    project.parent.mkdir()
    project.write_text('[[hooks.PreToolUse]]\nmatcher = "bash"\ncommand = "theirs.sh"\n')
    hooks = load_config(tmp_path, trust_project=True).hooks.PreToolUse
    assert [(h.command, h.source) for h in hooks] == [
        ("mine.sh", str(user)),
        ("theirs.sh", str(project)),
    ]
    untrusted = load_config(tmp_path).hooks.PreToolUse
    assert [h.command for h in untrusted] == ["mine.sh"]


def test_no_hooks_is_nothing_to_run():
    assert not HooksConfig().any()
