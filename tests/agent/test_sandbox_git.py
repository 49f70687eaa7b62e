"""A sandboxed command cannot change what the user's own git runs on the host (issue 22 item 3).

Real git, real bubblewrap. What git runs from a repository: its config (``core.fsmonitor`` runs
on ``git status``), its hooks, a ``commondir`` that moves both elsewhere, and the same for every
submodule's and linked worktree's git directory. Each test plants one of them from inside the
sandbox, then runs the user's git on the host and checks that nothing ran; the same commands
outside the sandbox do plant it (the refusal is the sandbox's). On the code before this change
the renamed ``.git``, the submodule's config, the nested submodule's, a ``commondir``, a
``config.worktree``, ``info/attributes`` and a submodule's ``.git`` file all got through."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from larik import sandbox as sb
from larik.protected import PROTECTED
from larik.sandbox.kept import GIT_KEPT, WORKTREE_KEPT

from .sandbox_kit import GIT, run

pytestmark = pytest.mark.usefixtures("needs_bwrap")

FSMONITOR = "git config core.fsmonitor 'touch {pwned}; false'"


def git(cwd: Path, *args: str) -> str:
    """The user's own git, on the host."""
    done = subprocess.run(
        [
            "git",
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "protocol.file.allow=always",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def repo(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", ".")
    (path / "a.txt").write_text("a\n")
    git(path, "add", "a.txt")
    git(path, "commit", "-qm", "first")
    return path


@pytest.fixture
def project(tmp_path) -> Path:
    return repo(tmp_path / "proj")


@pytest.fixture
def superproject(tmp_path) -> Path:
    """A project with a submodule ``sub`` that has a submodule ``inner`` of its own."""
    inner = repo(tmp_path / "inner")
    lib = repo(tmp_path / "lib")
    git(lib, "submodule", "add", "-q", str(inner), "inner")
    git(lib, "commit", "-qm", "inner")
    proj = repo(tmp_path / "proj")
    git(proj, "submodule", "add", "-q", str(lib), "sub")
    git(proj, "commit", "-qm", "sub")
    git(proj, "submodule", "update", "-q", "--init", "--recursive")
    assert (proj / ".git" / "modules" / "sub" / "modules" / "inner" / "config").is_file()
    return proj


def users_git_runs_nothing(project: Path, pwned: Path) -> None:
    """The user's git status (it recurses into submodules) and a commit run nothing planted."""
    git(project, "status")
    for sub in ("sub", "sub/inner"):
        if (project / sub).is_dir():
            git(project / sub, "status")
    (project / "b.txt").write_text("b\n")
    git(project, "add", "b.txt")
    git(project, "commit", "-qm", "user's own commit")
    assert not pwned.exists(), "the user's git ran what a sandboxed command planted"


def test_the_git_folder_cannot_be_swapped_for_a_copy(project, tmp_path):
    pwned = tmp_path / "pwned"
    config = (project / ".git" / "config").read_text()
    swap = "mv .git .g && mkdir .git && cp -a .g/. .git/ && " + FSMONITOR.format(pwned=pwned)
    out, _ = run(project, swap, sb.Sandbox())
    assert (project / ".git" / "config").read_text() == config, out
    assert not (project / ".g").exists() and "Device or resource busy" in out
    assert "this may be the sandbox" in out
    users_git_runs_nothing(project, pwned)


def test_no_config_of_a_submodule_or_a_nested_one_can_be_written(superproject, tmp_path):
    pwned = tmp_path / "pwned"
    modules = superproject / ".git" / "modules"
    before = {p: p.read_text() for p in modules.rglob("config")}
    plant = "; ".join(
        [
            f"(cd sub && {FSMONITOR.format(pwned=pwned)})",
            f"(cd sub/inner && {FSMONITOR.format(pwned=pwned)})",
            f"printf '[core]\\n\\tfsmonitor = touch {pwned}\\n' >> .git/modules/sub/config",
            f"printf '[core]\\n\\tfsmonitor = touch {pwned}\\n' >> "
            ".git/modules/sub/modules/inner/config",
            "mv .git/modules/sub .git/modules/old",
            "mv .git/modules .git/old-modules",
            "printf '#!/bin/sh\\ntouch %s\\n' "
            f"{pwned} > .git/modules/sub/hooks/pre-commit && chmod +x "
            ".git/modules/sub/hooks/pre-commit",
        ]
    )
    out, _ = run(superproject, plant, sb.Sandbox())
    assert {p: p.read_text() for p in modules.rglob("config")} == before, out
    assert not (modules / "sub" / "hooks" / "pre-commit").exists()
    users_git_runs_nothing(superproject, pwned)
    (superproject / "sub" / "c.txt").write_text("c\n")
    git(superproject / "sub", "add", "c.txt")
    git(superproject / "sub", "commit", "-qm", "in the submodule")
    assert not pwned.exists()


def test_a_submodules_git_file_cannot_be_pointed_elsewhere(superproject, tmp_path):
    pwned = tmp_path / "pwned"
    pointer = (superproject / "sub" / ".git").read_text()
    plant = (
        "git init -q evil && (cd evil && " + FSMONITOR.format(pwned=pwned) + ") && "
        "echo 'gitdir: ../evil/.git' > sub/.git; rm -f sub/.git; mv sub/.git sub/g"
    )
    out, _ = run(superproject, plant, sb.Sandbox())
    assert (superproject / "sub" / ".git").read_text() == pointer, out
    users_git_runs_nothing(superproject, pwned)


@pytest.mark.parametrize("name", ["commondir", "config.worktree", "info/attributes"])
def test_what_git_would_read_from_a_new_file_in_git_is_undone(project, tmp_path, name):
    """A new ``commondir`` moves git's config and hooks to a folder the command filled;
    ``config.worktree`` is read with ``extensions.worktreeConfig``; attributes pick drivers."""
    pwned = tmp_path / "pwned"
    evil = repo(tmp_path / "evil")
    git(evil, "config", "core.fsmonitor", f"touch {pwned}; false")
    body = {
        "commondir": str(evil / ".git"),
        "config.worktree": f"[core]\n\tfsmonitor = touch {pwned}\n",
        "info/attributes": "* filter=evil\n",
    }[name]
    (project / "body").write_text(body)  # (the host's /tmp is not the sandbox's)
    out, _ = run(project, f"mkdir -p .git/info; cp body .git/{name}", sb.Sandbox())
    assert not (project / ".git" / name).exists(), out
    assert f"the sandbox undid what this command made of .git/{name}" in out
    users_git_runs_nothing(project, pwned)
    run(project, f"cp body .git/{name}", None)  # unsandboxed it stays: the sandbox's
    assert (project / ".git" / name).exists()


def test_a_linked_worktrees_git_files_are_kept_too(project, tmp_path):
    pwned = tmp_path / "pwned"
    git(project, "worktree", "add", "-q", str(tmp_path / "wt"))
    linked = project / ".git" / "worktrees" / "wt"
    commondir = (linked / "commondir").read_text()
    evil = repo(tmp_path / "evil")
    git(evil, "config", "core.fsmonitor", f"touch {pwned}; false")
    plant = (
        f"echo {evil}/.git > .git/worktrees/wt/commondir; "
        f"printf '[core]\\n\\tfsmonitor = touch {pwned}\\n' > .git/worktrees/wt/config.worktree; "
        "mv .git/worktrees/wt .git/worktrees/old"
    )
    out, _ = run(project, plant, sb.Sandbox())
    assert (linked / "commondir").read_text() == commondir, out
    assert not (linked / "config.worktree").exists(), out
    git(tmp_path / "wt", "status")
    assert not pwned.exists()


def test_commits_branches_and_the_index_still_work(superproject):
    work = (
        f"echo x > new.txt && {GIT} add new.txt && {GIT} commit -qm one && "
        f"{GIT} branch topic && {GIT} checkout -q -b feature && echo y >> new.txt && "
        f"{GIT} commit -qam two && {GIT} checkout -q topic && {GIT} merge -q feature && "
        f"{GIT} stash list && {GIT} tag v1 && {GIT} gc -q && "
        f"(cd sub && echo z > z.txt && {GIT} add z.txt && {GIT} commit -qm in-sub) && "
        "echo ALL-DONE"
    )
    out, data = run(superproject, work, sb.Sandbox())
    assert "ALL-DONE" in out and data["exit_code"] == 0, out
    log = git(superproject, "log", "--format=%s", "topic")
    assert log.splitlines()[:2] == ["two", "one"]
    assert git(superproject, "tag") == "v1\n"
    assert "in-sub" in git(superproject / "sub", "log", "--format=%s")
    assert "the sandbox undid" not in out


def test_a_plain_git_init_stays_and_one_that_runs_something_is_undone(tmp_path):
    pwned = tmp_path / "pwned"
    plain = tmp_path / "plain"
    plain.mkdir()
    out, _ = run(
        plain, f"git init -q . && {GIT} commit -q --allow-empty -m x && echo ok", sb.Sandbox()
    )
    assert (plain / ".git" / "HEAD").is_file() and "undid" not in out, out
    hostile = tmp_path / "hostile"
    hostile.mkdir()
    out, _ = run(hostile, "git init -q . && " + FSMONITOR.format(pwned=pwned), sb.Sandbox())
    assert not (hostile / ".git").exists(), out
    assert "undid what this command made of .git (it has config (core.fsmonitor))" in out
    pointer = tmp_path / "pointer"
    pointer.mkdir()
    repo(tmp_path / "elsewhere")
    out, _ = run(pointer, f"echo 'gitdir: {tmp_path}/elsewhere/.git' > .git", sb.Sandbox())
    assert not (pointer / ".git").exists(), out


@pytest.mark.xfail(
    strict=True,
    reason="open (docs/security.md, round two): a nested repository a command makes further "
    "down, staged as a gitlink, is entered by the user's git status, which runs its config",
)
def test_a_nested_repository_staged_as_a_gitlink_runs_nothing_on_the_users_git_status(
    project, tmp_path
):
    pwned = tmp_path / "pwned"
    plant = (
        "git init -q nested && (cd nested && "
        + FSMONITOR.format(pwned=pwned)
        + f" && echo n > n && {GIT} add n && {GIT} commit -qm n) && {GIT} add nested"
    )
    run(project, plant, sb.Sandbox())
    git(project, "status")
    assert not pwned.exists()


def test_every_git_entry_of_the_protected_list_is_kept_by_the_sandbox():
    """The table the sandbox's git rules come from is the protected list (one fact)."""
    git_entries = [e.removesuffix("/**") for e in PROTECTED if e.startswith(".git/")]
    covered = {f".git/{n}" for n in GIT_KEPT}
    covered |= {f".git/modules/*/{n}" for n in GIT_KEPT}  # every submodule's, nested too
    covered |= {f".git/worktrees/*/{n}" for n in WORKTREE_KEPT}
    assert [e for e in git_entries if e not in covered] == []
    assert "hooks" in GIT_KEPT and "commondir" in GIT_KEPT


def test_no_mount_point_is_left_in_the_users_project(project):
    before = sorted(p.relative_to(project) for p in project.rglob("*") if ".git" not in p.parts)
    run(project, "true", sb.Sandbox())
    after = sorted(p.relative_to(project) for p in project.rglob("*") if ".git" not in p.parts)
    assert after == before
    assert git(project, "status", "--porcelain") == ""
    assert os.listdir(project) == [p for p in os.listdir(project)]


def test_a_git_folder_reached_through_a_link_is_kept_and_the_link_put_back(tmp_path):
    pwned = tmp_path / "pwned"
    project = tmp_path / "proj"
    repo(project)
    os.rename(project / ".git", project / "repo.git")
    os.symlink("repo.git", project / ".git")
    config = (project / "repo.git" / "config").read_text()
    out, _ = run(
        project, FSMONITOR.format(pwned=pwned) + "; rm .git && git init -q .", sb.Sandbox()
    )
    assert (project / "repo.git" / "config").read_text() == config, out
    assert os.readlink(project / ".git") == "repo.git", out
    out, data = run(
        project, f"echo c > c.txt && {GIT} add c.txt && {GIT} commit -qm c", sb.Sandbox()
    )
    assert data["exit_code"] == 0, out
