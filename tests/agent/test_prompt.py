"""The system prompt: a stable prefix, then the session's context."""

from __future__ import annotations

import platform
import subprocess
from datetime import date

from larik.agent import prompt


def test_the_prefix_depends_only_on_role_and_tools(tmp_path):
    a = prompt.prefix(None, ["read_file", "bash"])
    assert a == prompt.prefix(None, ["read_file", "bash"])
    assert "Larik" in a and "read_file, bash" in a and str(tmp_path) not in a
    explore = prompt.prefix("explore", ["read_file"])
    assert "role explore" in explore and "only read" in explore and explore != a


def test_context_names_directory_platform_and_date(project):
    ctx = prompt.session_context(project, today=date(2025, 3, 4))
    assert f"Working directory (project root): {project}" in ctx
    assert platform.system() in ctx and "Date: 2025-03-04" in ctx
    assert "not a git repository" in ctx


def test_context_summarises_git_branch_and_status(git_project):
    (git_project / "new.py").write_text("")
    subprocess.run(["git", "-C", str(git_project), "add", "calc.py"], check=True)
    ctx = prompt.session_context(git_project)
    assert "Git branch:" in ctx
    assert "2 changed or untracked files" in ctx and "?? new.py" in ctx and "A  calc.py" in ctx


def test_agents_md_is_included_and_preferred_to_claude_md(project):
    (project / "CLAUDE.md").write_text("Claude rules")
    assert "Project instructions from CLAUDE.md:\n\nClaude rules" in prompt.session_context(project)
    (project / "AGENTS.md").write_text("Use tabs.")
    ctx = prompt.session_context(project)
    assert "Project instructions from AGENTS.md:\n\nUse tabs." in ctx and "Claude rules" not in ctx


def test_huge_instructions_are_cut(project):
    (project / "AGENTS.md").write_text("x" * 50_000)
    ctx = prompt.session_context(project)
    assert len(ctx) < 25_000 and "AGENTS.md cut at" in ctx


def test_the_git_summary_runs_no_fsmonitor_of_the_project_and_writes_nothing_to_its_git(
    git_project,
):
    """A cloned repository's .git/config could name a program as core.fsmonitor: `git status`
    would run it at every session start. The summary reads with it off and writes no index."""
    from .test_checkpoints import git, tree_digest

    marker = git_project.parent / "ran"
    evil = git_project.parent / "evil.sh"
    evil.write_text(f"#!/bin/sh\necho ran >> {marker}\n")
    evil.chmod(0o755)
    git(git_project, "add", "-A")
    git(git_project, "commit", "-qm", "one")
    git(git_project, "config", "core.fsmonitor", str(evil))
    (git_project / "calc.py").write_text("changed\n")  # the index's stat data goes stale
    state = tree_digest(git_project / ".git")
    ctx = prompt.session_context(git_project)
    assert "calc.py" in ctx
    assert not marker.exists()
    assert tree_digest(git_project / ".git") == state
