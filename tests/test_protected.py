"""The files that decide what Larik runs next time (larik/protected.py): one list, walked."""

from __future__ import annotations

from pathlib import Path

import pytest

from larik import custom_commands, protected
from larik.agent import prompt, skills
from larik.locations import CLAUDE_SETTINGS
from larik.mcp.config import MCP_JSON
from larik.protected import PROTECTED, is_protected, protected_pattern


def _example(pattern: str) -> str:
    return pattern.replace("**", "x/y.md").replace("*", ".local")


@pytest.mark.parametrize("pattern", PROTECTED)
def test_each_entry_is_protected_at_the_top_at_any_depth_and_in_any_case(tmp_path, pattern):
    path = _example(pattern)
    assert protected_pattern(path, tmp_path) == pattern
    assert is_protected(f"packages/web/{path}", tmp_path)
    assert is_protected(tmp_path / path.upper(), tmp_path)


def test_every_file_larik_reads_to_decide_what_runs_is_on_the_list(tmp_path):
    read = [
        ".larik/config.toml",
        MCP_JSON,
        *(f".claude/{name}" for name in CLAUDE_SETTINGS),
        *(f"{folder}/x.md" for folder in custom_commands.PROJECT_FOLDERS),
        *(f"{folder}/s/SKILL.md" for folder in skills.PROJECT_FOLDERS),
        *prompt.INSTRUCTION_FILES,
        ".claude/hooks/check.sh",
        ".claude/agents/reviewer.md",
        ".git/hooks/pre-commit",  # what the user's own git runs
        ".git/config",
        ".git/modules/vendor/config",
        "vendor/lib/.git",  # a .git file: a nested repository pointing anywhere
    ]
    assert [p for p in read if not is_protected(p, tmp_path)] == []
    assert prompt.INSTRUCTION_FILES is protected.INSTRUCTION_FILES  # one fact


@pytest.mark.parametrize(
    "path",
    [
        "src/app.py",
        "README.md",
        ".claude/notes.md",
        ".larikrc",
        "docs/AGENTS.md.txt",
        ".mcp.json5",
        ".gitignore",
        ".github/workflows/ci.yml",
    ],
)
def test_ordinary_files_are_not_protected(tmp_path, path):
    assert not is_protected(path, tmp_path)


def test_a_link_to_a_protected_file_and_a_protected_link_are_both_protected(tmp_path):
    (tmp_path / ".mcp.json").write_text("{}")
    (tmp_path / "notes").symlink_to(".mcp.json")
    (tmp_path / "elsewhere.json").write_text("{}")
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").symlink_to(tmp_path / "elsewhere.json")
    assert is_protected("notes", tmp_path)
    assert is_protected(".claude/settings.json", tmp_path)
    assert is_protected("src/../.mcp.json", tmp_path)
    assert not is_protected("elsewhere.json", tmp_path)


def test_outside_the_project_the_whole_path_is_read(tmp_path: Path):
    assert is_protected(Path.home() / ".claude" / "settings.json", tmp_path)
    assert not is_protected("/etc/hosts", tmp_path)
