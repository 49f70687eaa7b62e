"""What the user's git follows out of its config is kept like ``.git/hooks`` (issue 42 item 2).

Real git, real bubblewrap. Reproduced before: in ``edits`` mode ``write_file
.githooks/pre-commit`` and ``write_file .gitconfig.shared`` (with ``core.fsmonitor``) were
written unasked and the user's next ``git commit`` / ``git status`` ran them; in yolo a
sandboxed ``printf > .githooks/pre-commit`` did the same. Here each file git follows —
a ``core.hooksPath`` folder, an included config (nested, conditional, missing), a program a
key names — is written by a sandboxed command and by the file tools; the sandbox refuses or
undoes it and the user's git runs nothing; the file tools ask in every mode."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from larik import sandbox as sb
from larik.agent.permissions import PermissionPolicy
from larik.agent.tools import get_tool

from .sandbox_kit import run
from .test_sandbox_git import git, repo, users_git_runs_nothing

WRITE = get_tool("write_file")
EDIT = get_tool("edit_file")
BASH = get_tool("bash")


@pytest.fixture
def project(tmp_path) -> Path:
    return repo(tmp_path / "proj")


def hook(pwned: Path) -> str:
    return f"#!/bin/sh\ntouch {pwned}\n"


def fsmonitor(pwned: Path) -> str:
    return f"[core]\n\tfsmonitor = touch {pwned}; false\n"


def plant(project: Path, rel: str, body: str, *, executable: bool = False) -> str:
    """A command writing ``body`` into ``rel`` (the body staged in the project: the
    sandbox's /tmp is not the host's)."""
    (project / "body").write_text(body)
    mode = f" && chmod +x {rel}" if executable else ""
    return f"mkdir -p $(dirname {rel}) && cp body {rel}{mode}"


# ---------------------------------------------------------------------------- the sandbox


@pytest.mark.usefixtures("needs_bwrap")
@pytest.mark.parametrize("hooks", [".githooks", ".husky/_"])
@pytest.mark.parametrize("exists", [True, False], ids=["folder-exists", "folder-missing"])
def test_a_sandboxed_command_cannot_plant_a_hook_in_the_hooks_path(
    project, tmp_path, hooks, exists
):
    pwned = tmp_path / "pwned"
    git(project, "config", "core.hooksPath", hooks)
    if exists:
        (project / hooks).mkdir(parents=True)
        (project / hooks / "README").write_text("shared hooks\n")
    out, _ = run(
        project, plant(project, f"{hooks}/pre-commit", hook(pwned), executable=True), sb.Sandbox()
    )
    assert not (project / hooks / "pre-commit").exists(), out
    users_git_runs_nothing(project, pwned)
    # unsandboxed it is planted and runs: the refusal is the sandbox's
    run(project, plant(project, f"{hooks}/pre-commit", hook(pwned), executable=True), None)
    (project / "c.txt").write_text("c\n")
    git(project, "add", "c.txt")
    git(project, "commit", "-qm", "c")
    assert pwned.exists()


@pytest.mark.usefixtures("needs_bwrap")
def test_huskys_own_hook_beside_its_stubs_cannot_be_rewritten(project, tmp_path):
    """husky: ``.husky/_/pre-commit`` runs ``.husky/pre-commit``, the file users edit."""
    pwned = tmp_path / "pwned"
    git(project, "config", "core.hooksPath", ".husky/_")
    (project / ".husky" / "_").mkdir(parents=True)
    stub = '#!/bin/sh\nexec "$(dirname "$(dirname "$0")")/$(basename "$0")"\n'
    (project / ".husky" / "_" / "pre-commit").write_text(stub)
    (project / ".husky" / "_" / "pre-commit").chmod(0o755)
    (project / ".husky" / "pre-commit").write_text("#!/bin/sh\ntrue\n")
    (project / ".husky" / "pre-commit").chmod(0o755)
    out, _ = run(project, plant(project, ".husky/pre-commit", hook(pwned)), sb.Sandbox())
    assert (project / ".husky" / "pre-commit").read_text() == "#!/bin/sh\ntrue\n", out
    users_git_runs_nothing(project, pwned)


@pytest.mark.usefixtures("needs_bwrap")
@pytest.mark.parametrize("exists", [True, False], ids=["file-exists", "file-missing"])
def test_a_sandboxed_command_cannot_write_an_included_config(project, tmp_path, exists):
    pwned = tmp_path / "pwned"
    git(project, "config", "include.path", "../.gitconfig.shared")
    if exists:
        (project / ".gitconfig.shared").write_text("[user]\n\tname = shared\n")
    before = (project / ".gitconfig.shared").read_bytes() if exists else None
    out, _ = run(project, plant(project, ".gitconfig.shared", fsmonitor(pwned)), sb.Sandbox())
    now = (project / ".gitconfig.shared").read_bytes() if exists else None
    assert now == before and (project / ".gitconfig.shared").exists() == exists, out
    users_git_runs_nothing(project, pwned)


@pytest.mark.usefixtures("needs_bwrap")
def test_nested_and_conditional_includes_are_kept_whatever_the_branch(project, tmp_path):
    """a.gitconfig includes conf/b.gitconfig (missing); an includeIf onbranch:evil names
    c.gitconfig, whose condition a ``git checkout -b evil`` in the same command makes hold."""
    pwned = tmp_path / "pwned"
    (project / "a.gitconfig").write_text("[include]\n\tpath = conf/b.gitconfig\n")
    git(project, "config", "include.path", "../a.gitconfig")
    git(project, "config", "includeIf.onbranch:evil.path", "../c.gitconfig")
    (project / "body").write_text(fsmonitor(pwned))
    command = "mkdir -p conf; cp body conf/b.gitconfig; cp body c.gitconfig; git checkout -qb evil"
    out, _ = run(project, command, sb.Sandbox())
    assert not (project / "conf" / "b.gitconfig").exists(), out
    assert not (project / "c.gitconfig").exists(), out
    users_git_runs_nothing(project, pwned)


@pytest.mark.usefixtures("needs_bwrap")
def test_a_program_a_key_names_cannot_be_rewritten(project, tmp_path):
    pwned = tmp_path / "pwned"
    (project / "tools").mkdir()
    (project / "tools" / "conv.sh").write_text('#!/bin/sh\ncat "$1"\n')
    (project / "tools" / "conv.sh").chmod(0o755)
    git(project, "config", "diff.txt.textconv", "tools/conv.sh")
    (project / ".gitattributes").write_text("*.txt diff=txt\n")
    out, _ = run(project, plant(project, "tools/conv.sh", hook(pwned)), sb.Sandbox())
    assert "touch" not in (project / "tools" / "conv.sh").read_text(), out
    (project / "a.txt").write_text("changed\n")
    git(project, "diff")
    assert not pwned.exists()


@pytest.mark.usefixtures("needs_bwrap")
def test_a_config_changed_during_the_session_keeps_its_new_target(project, tmp_path):
    pwned = tmp_path / "pwned"
    command = plant(project, ".githooks/pre-commit", hook(pwned), executable=True)
    box = sb.Sandbox()
    run(project, command, box)  # no hooksPath yet: an ordinary file
    assert (project / ".githooks" / "pre-commit").exists()
    subprocess.run(["rm", "-rf", str(project / ".githooks")], check=True)
    git(project, "config", "core.hooksPath", ".githooks")  # the user sets it mid-session
    out, _ = run(project, command, box)
    assert not (project / ".githooks" / "pre-commit").exists(), out
    users_git_runs_nothing(project, pwned)


@pytest.mark.usefixtures("needs_bwrap")
def test_a_hooks_path_outside_the_project_in_a_writable_folder_stays_read_only(project, outside):
    hooks = outside / "shared-hooks"
    hooks.mkdir()
    git(project, "config", "core.hooksPath", str(hooks))
    box = sb.Sandbox(writable=(outside,))
    out, _ = run(project, f"echo x > {outside}/other; echo evil > {hooks}/pre-commit", box)
    assert (outside / "other").exists(), out  # the writable folder is writable
    assert not (hooks / "pre-commit").exists(), out


@pytest.mark.usefixtures("needs_bwrap")
def test_a_hooks_path_at_the_top_keeps_only_the_hooks_and_the_project_writable(project):
    git(project, "config", "core.hooksPath", ".")
    out, _ = run(project, "echo x > pre-commit; echo y > notes.txt", sb.Sandbox())
    assert not (project / "pre-commit").exists(), out
    assert (project / "notes.txt").read_text() == "y\n"


# ---------------------------------------------------------------------------- the file tools

FOLLOWED_FILES = {
    ".githooks/pre-commit": ("core.hooksPath", ".githooks"),
    ".githooks/lib/common.sh": ("core.hooksPath", ".githooks"),
    ".gitconfig.shared": ("include.path", "../.gitconfig.shared"),
    "conf/cond.gitconfig": ("includeIf.gitdir:/nowhere/.path", "../conf/cond.gitconfig"),
    ".husky/pre-commit": ("core.hooksPath", ".husky/_"),
    "scripts/fsmonitor.sh": ("core.fsmonitor", "./scripts/fsmonitor.sh"),
    "tools/conv.py": ("diff.nb.textconv", "python3 tools/conv.py"),
    "bin/deploy": ("alias.deploy", "!bin/deploy --now"),
}


@pytest.mark.parametrize("mode", ["edits", "yolo"])
@pytest.mark.parametrize("rel", list(FOLLOWED_FILES))
def test_a_file_tools_write_to_what_git_follows_is_a_firm_question(project, mode, rel):
    assert WRITE is not None and EDIT is not None and BASH is not None
    policy = PermissionPolicy(project, mode, allow=["write_file: *", "edit_file: *", "bash: *"])
    assert policy.decide(WRITE, WRITE.args(path=rel, content="x")).verdict == "allow"  # before
    git(project, "config", *FOLLOWED_FILES[rel])
    for tool, args in [
        (WRITE, WRITE.args(path=rel, content="x")),
        (EDIT, EDIT.args(path=rel, old_string="a", new_string="b")),
        (BASH, BASH.args(command=f"printf x > {rel}")),
    ]:
        d = policy.decide(tool, args)
        assert (d.verdict, d.firm) == ("ask", True), (tool.name, d)
    assert policy.decide(WRITE, WRITE.args(path="src/app.py", content="x")).verdict == "allow"


def test_a_write_through_a_link_to_a_followed_file_is_asked(project):
    assert WRITE is not None
    git(project, "config", "core.hooksPath", ".githooks")
    (project / ".githooks").mkdir()
    (project / "innocent").symlink_to(".githooks/pre-commit")
    policy = PermissionPolicy(project, "yolo")
    assert policy.decide(WRITE, WRITE.args(path="innocent", content="x")).verdict == "ask"


def test_a_hooks_path_outside_the_project_is_asked_even_where_an_allow_rule_reaches(
    project, tmp_path
):
    assert WRITE is not None
    hooks = tmp_path / "shared-hooks"
    git(project, "config", "core.hooksPath", str(hooks))
    policy = PermissionPolicy(project, "yolo", allow=[f"write_file: {tmp_path}/*"])
    d = policy.decide(WRITE, WRITE.args(path=str(hooks / "pre-commit"), content="x"))
    assert (d.verdict, d.firm) == ("ask", True), d
    other = policy.decide(WRITE, WRITE.args(path=str(tmp_path / "notes"), content="x"))
    assert other.verdict == "allow"
