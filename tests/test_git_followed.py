"""What the user's git follows out of its config is found, with real git (issue 42 item 2).

Each key of ``FOLLOWED`` is set in a real repository and its target must come back; keys that
run nothing must not; includes are followed whatever their condition and within includes; a
config changed (or an included file changed) is read again; a hostile config gives an answer,
never a traceback."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from larik import git_followed
from larik.git_followed import FOLLOWED, HOOK_NAMES, targets
from larik.protected import protected_pattern


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def project(tmp_path) -> Path:
    path = tmp_path / "proj"
    path.mkdir()
    git(path, "init", "-q", ".")
    return path


def paths(folder: Path) -> dict[Path, bool]:
    return {t.path: t.tree for t in targets(folder)}


def _key(f: git_followed.Follows) -> str:
    return f.key.replace("*", "x")


@pytest.mark.parametrize("follows", FOLLOWED, ids=lambda f: f.key)
def test_every_key_that_names_what_git_runs_or_reads_is_followed(project, follows):
    value = "tools/run.sh"
    if follows.bang:
        value = "!" + value
    git(project, "config", _key(follows), value)
    base = project / ".git" if follows.kind == "config" else project  # an include: beside it
    assert (base / "tools" / "run.sh") in paths(project)


@pytest.mark.parametrize(
    "key",
    ["core.excludesFile", "commit.template", "mailmap.file", "blame.ignoreRevsFile", "alias.st"],
)
def test_keys_that_run_nothing_are_not_followed(project, key):
    git(project, "config", key, "tools/run.sh")
    assert paths(project) == {}


def test_a_command_lines_program_and_path_arguments_are_followed_not_a_program_on_path(project):
    (project / "conv.py").write_text("")
    git(project, "config", "diff.nb.textconv", "python3 conv.py --x=1 $HOME/y")
    git(project, "config", "alias.pub", '!f() { ./scripts/pub.sh "$1"; }; f')
    found = paths(project)
    assert project / "conv.py" in found and project / "scripts" / "pub.sh" in found
    assert project / "python3" not in found and project / "f" not in found


def test_includes_are_followed_nested_and_whatever_their_condition(project):
    git(project, "config", "include.path", "../shared/a.gitconfig")
    git(project, "config", "includeIf.onbranch:never.path", "../cond.gitconfig")
    (project / "shared").mkdir()
    (project / "shared" / "a.gitconfig").write_text("[include]\n\tpath = deeper/b.gitconfig\n")
    (project / "shared" / "deeper").mkdir()
    (project / "shared" / "deeper" / "b.gitconfig").write_text(
        "[core]\n\tfsmonitor = ./fsmon.sh\n[include]\n\tpath = missing.gitconfig\n"
    )
    (project / "cond.gitconfig").write_text("[core]\n\thooksPath = cond-hooks\n")
    found = paths(project)
    for rel in ("shared/a.gitconfig", "shared/deeper/b.gitconfig", "cond.gitconfig"):
        assert found[project / rel] is False, rel
    # relative to the file naming it; a missing one too (writing it would make it config)
    assert project / "shared" / "deeper" / "missing.gitconfig" in found
    assert project / "fsmon.sh" in found  # a program run from the top
    assert found[project / "cond-hooks"] is True


def test_a_hooks_folder_is_kept_whole_but_at_the_top_only_the_hooks_names(project):
    git(project, "config", "core.hooksPath", ".githooks")
    assert paths(project) == {project / ".githooks": True}
    git(project, "config", "core.hooksPath", ".")
    found = paths(project)
    assert found == {project / name: False for name in HOOK_NAMES}
    assert protected_pattern("pre-commit", project) is not None
    assert protected_pattern("src/app.py", project) is None  # the project stays writable


def test_huskys_stubs_lead_to_its_hooks_one_folder_up(project):
    git(project, "config", "core.hooksPath", ".husky/_")
    found = paths(project)
    assert found[project / ".husky" / "_"] is True
    assert project / ".husky" / "pre-commit" in found
    assert protected_pattern(".husky/pre-commit", project) is not None


def test_from_a_folder_below_the_top_the_top_is_where_paths_start(project):
    git(project, "config", "core.hooksPath", "sub/hooks")
    (project / "sub").mkdir()
    assert paths(project / "sub") == {project / "sub" / "hooks": True}


def test_a_config_changed_is_read_again(project):
    assert paths(project) == {}
    git(project, "config", "core.hooksPath", ".githooks")
    assert project / ".githooks" in paths(project)


def test_an_included_file_changed_is_read_again(project):
    (project / "shared.gitconfig").write_text("[user]\n\tname = x\n")
    git(project, "config", "include.path", "../shared.gitconfig")
    assert project / "hooks-here" not in paths(project)
    (project / "shared.gitconfig").write_text("[core]\n\thooksPath = hooks-here\n")
    assert project / "hooks-here" in paths(project)


def test_a_repository_made_after_the_first_look_is_read(tmp_path):
    folder = tmp_path / "later"
    folder.mkdir()
    assert targets(folder) == ()
    git(folder, "init", "-q", ".")
    git(folder, "config", "core.hooksPath", "h")
    assert folder / "h" in paths(folder)


def test_a_hooks_path_outside_the_project_is_asked_for_and_kept_as_it_is(project, tmp_path):
    hooks = tmp_path / "shared-hooks"
    git(project, "config", "core.hooksPath", str(hooks))
    assert paths(project) == {hooks: True}
    assert protected_pattern(hooks / "pre-commit", project) is not None
    git(project, "config", "core.hooksPath", "../../../../../../..")  # above /: /
    assert Path("/pre-commit") in paths(project)  # the hooks' names only


def test_a_hostile_config_gives_an_answer_and_no_traceback(project):
    odd = [
        ("core", "hooksPath", "x" * 100_000),  # too long to be a path
        ("core", "hooksPath", "%(prefix)/hooks"),
        ("include", "path", "../../../x/../outside.gitconfig"),  # .. out of the project
        ('alias "z"', "x", "!" + "$(" * 5000),
        ('alias "w"', "x", "!\x01\x7f ../../x ✓ \u202e"),
        ('diff "ä"', "textconv", "./naïve.sh"),
        ("core", "fsmonitor", "'unterminated"),
        ('includeIf "gitdir:[*?"', "path", "[*]/x"),
    ]
    with (project / ".git" / "config").open("a") as f:
        for section, key, value in odd:
            quoted = value.replace("\\", "\\\\").replace('"', '\\"')
            f.write(f'[{section}]\n\t{key} = "{quoted}"\n')
        for i in range(3000):  # a big one
            f.write(f'[alias "a{i}"]\n\tx = !./scripts/s{i}.sh\n')
    subprocess.run(["git", "config", "--list"], cwd=project, check=True, capture_output=True)
    found = paths(project)
    assert project / "naïve.sh" in found and project / ".git" / "[*]" / "x" in found
    assert project.parent.parent / "outside.gitconfig" in found
    assert len(found) <= 2 * git_followed.MAX_TARGETS


@pytest.mark.parametrize(
    "config",
    [
        "[core\n\thooksPath = h\n",  # no closing bracket
        "[include]\n\tpath = ../a.gitconfig\n",  # a loop: a includes b includes a
        "[include]\n\tpath = ..\n",  # a folder
        "[core]\n\thooksPath = ~nosuchuser/h\n",
    ],
    ids=["syntax", "include-loop", "include-folder", "unknown-user"],
)
def test_a_config_git_refuses_gives_nothing_and_the_users_git_runs_nothing(project, config):
    (project / "a.gitconfig").write_text("[include]\n\tpath = b.gitconfig\n")
    (project / "b.gitconfig").write_text("[include]\n\tpath = a.gitconfig\n")
    with (project / ".git" / "config").open("a") as f:
        f.write(config)
    assert targets(project) == ()
    status = subprocess.run(["git", "status"], cwd=project, capture_output=True)
    assert status.returncode != 0  # the user's git refuses it too: nothing of it runs


def test_an_unchanged_config_is_not_read_again(project, monkeypatch):
    git(project, "config", "core.hooksPath", ".githooks")
    monkeypatch.setattr(git_followed, "FRESH_NS", 0)  # no file counts as just changed
    calls: list[list[str]] = []
    real = git_followed._git

    def counted(args: list[str], cwd: Path) -> bytes | None:
        calls.append(args)
        return real(args, cwd)

    monkeypatch.setattr(git_followed, "_git", counted)
    first = targets(project)
    assert calls and targets(project) == first
    seen = len(calls)
    assert targets(project) == first and len(calls) == seen  # from the cache
    (project / "shared.gitconfig").write_text("")
    git(project, "config", "include.path", "../shared.gitconfig")
    assert project / "shared.gitconfig" in paths(project) and len(calls) > seen
