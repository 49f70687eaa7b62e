"""The checkpoint store (larik/agent/checkpoints.py): real git, real files, and the user's own
repository byte-identical after everything."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

from larik.agent.checkpoints import EMPTY_TREE, CheckpointError, Limits, ShadowRepo, Step, show


def git(cwd: Path, *args: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_AUTHOR_NAME="u", GIT_AUTHOR_EMAIL="u@x", GIT_COMMITTER_NAME="u")
    env.update(GIT_COMMITTER_EMAIL="u@x", GIT_CONFIG_NOSYSTEM="1", HOME=str(cwd.parent))
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def tree_digest(d: Path) -> dict[str, str]:
    """Every file under ``d`` (symlinks as their target) -> a digest of its bytes and mode."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(d):
        dirnames.sort()
        for name in [*filenames, *dirnames]:
            p = Path(dirpath) / name
            rel = str(p.relative_to(d))
            if p.is_symlink():
                out[rel] = "link:" + os.readlink(p)
            elif p.is_file():
                data = p.read_bytes()
                out[rel] = f"{oct(p.stat().st_mode)}:{hashlib.sha256(data).hexdigest()}"
    return out


@pytest.fixture
def proj(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (root / "pkg").mkdir()
    (root / "pkg" / "util.py").write_text("X = 1\n")
    return root


@pytest.fixture
def repo(proj: Path, tmp_path: Path) -> ShadowRepo:
    return ShadowRepo(proj, tmp_path / "state" / "shadow")


def undo(repo: ShadowRepo, before, after, *, overwrite: bool = False):
    plan = repo.plan([Step(before.tree, after.tree)])
    return plan, repo.apply(plan, overwrite=overwrite)


def test_undo_restores_an_edit_removes_a_new_file_and_brings_back_a_deleted_one(repo, proj):
    start = tree_digest(proj)
    before = repo.snapshot()
    (proj / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (proj / "new").mkdir()
    (proj / "new" / "made.txt").write_text("made by the turn\n")
    (proj / "pkg" / "util.py").unlink()
    after = repo.snapshot()
    assert repo.changed(before.tree, after.tree) == [b"calc.py", b"new/made.txt", b"pkg/util.py"]
    plan, done = undo(repo, before, after)
    assert plan.conflicts == []
    assert tree_digest(proj) == start
    assert sorted(done.written) == [b"calc.py", b"pkg/util.py"]
    assert done.removed == [b"new/made.txt"]
    assert not (proj / "new").exists()  # the folder the turn made went with its file


def test_undo_keeps_the_exec_bit_and_restores_a_symlink_as_a_link(repo, proj):
    script = proj / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (proj / "link").symlink_to("calc.py")
    start = tree_digest(proj)
    before = repo.snapshot()
    script.write_text("#!/bin/sh\necho changed\n")
    script.chmod(0o644)
    (proj / "link").unlink()
    (proj / "link").write_text("now a file\n")
    after = repo.snapshot()
    undo(repo, before, after)
    assert tree_digest(proj) == start
    assert os.access(script, os.X_OK)


def test_a_snapshot_costs_nothing_new_when_nothing_changed(repo, proj):
    a = repo.snapshot()
    b = repo.snapshot()
    assert a.tree == b.tree and repo.changed(a.tree, b.tree) == []


def test_works_in_a_folder_that_is_not_a_git_repository(repo, proj):
    assert not (proj / ".git").exists()
    before = repo.snapshot()
    (proj / "calc.py").write_text("broken\n")
    after = repo.snapshot()
    undo(repo, before, after)
    assert "a - b" in (proj / "calc.py").read_text()
    assert not (proj / ".git").exists()


def test_a_file_changed_since_the_step_is_a_conflict_kept_unless_overwrite(repo, proj):
    before = repo.snapshot()
    (proj / "calc.py").write_text("by the agent\n")
    (proj / "pkg" / "util.py").write_text("Y = 2\n")
    after = repo.snapshot()
    (proj / "calc.py").write_text("by the user, after the turn\n")
    plan, done = undo(repo, before, after)
    assert plan.conflicts == [b"calc.py"]
    assert done.kept == [b"calc.py"] and done.written == [b"pkg/util.py"]
    assert (proj / "calc.py").read_text() == "by the user, after the turn\n"
    plan, done = undo(repo, before, after, overwrite=True)
    assert "a - b" in (proj / "calc.py").read_text()


def test_a_file_the_user_deleted_after_the_step_is_a_conflict_too(repo, proj):
    before = repo.snapshot()
    (proj / "calc.py").write_text("by the agent\n")
    after = repo.snapshot()
    (proj / "calc.py").unlink()
    plan = repo.plan([Step(before.tree, after.tree)])
    assert plan.conflicts == [b"calc.py"]


def test_steps_walk_back_in_order_and_only_what_the_user_changed_conflicts(repo, proj):
    s0 = repo.snapshot()
    (proj / "calc.py").write_text("turn 1\n")
    s1 = repo.snapshot()
    (proj / "calc.py").write_text("turn 2\n")
    (proj / "two.txt").write_text("made in turn 2\n")
    s2 = repo.snapshot()
    plan = repo.plan([Step(s1.tree, s2.tree), Step(s0.tree, s1.tree)])
    assert plan.conflicts == []
    repo.apply(plan)
    assert "a - b" in (proj / "calc.py").read_text()
    assert not (proj / "two.txt").exists()


def test_a_user_edit_between_two_turns_is_a_conflict_when_walking_past_it(repo, proj):
    s0 = repo.snapshot()
    (proj / "calc.py").write_text("turn 1\n")
    a1 = repo.snapshot()
    (proj / "calc.py").write_text("turn 1 + the user's fix\n")  # between the turns
    b2 = repo.snapshot()
    (proj / "calc.py").write_text("turn 2\n")
    a2 = repo.snapshot()
    assert repo.plan([Step(b2.tree, a2.tree)]).conflicts == []
    plan = repo.plan([Step(b2.tree, a2.tree), Step(s0.tree, a1.tree)])
    assert plan.conflicts == [b"calc.py"]


def test_the_users_git_state_is_byte_identical_after_everything(repo, proj):
    git(proj, "init", "-q", "-b", "main")
    git(proj, "add", "-A")
    git(proj, "commit", "-qm", "one")
    git(proj, "branch", "feature")
    (proj / "calc.py").write_text("stashed change\n")
    git(proj, "stash", "-q")
    (proj / "pkg" / "util.py").write_text("staged\n")
    git(proj, "add", "pkg/util.py")
    (proj / "calc.py").write_text("unstaged\n")
    state = tree_digest(proj / ".git")
    views = [git(proj, *a) for a in (["rev-parse", "HEAD"], ["stash", "list"], ["branch"])]
    before = repo.snapshot()
    (proj / "calc.py").write_text("agent\n")
    (proj / "new.py").write_text("new\n")
    after = repo.snapshot()
    undo(repo, before, after)
    repo.snapshot()
    assert tree_digest(proj / ".git") == state
    assert [git(proj, *a) for a in (["rev-parse", "HEAD"], ["stash", "list"], ["branch"])] == views
    assert (proj / "calc.py").read_text() == "unstaged\n"


def test_the_projects_git_config_hooks_fsmonitor_and_filters_never_run(repo, proj, monkeypatch):
    marker = proj.parent / "ran"
    evil = proj.parent / "evil.sh"
    evil.write_text(f'#!/bin/sh\necho "$0 $*" >> {marker}\ncat\n')
    evil.chmod(0o755)
    git(proj, "init", "-q", "-b", "main")
    hooks = proj / ".git" / "hooks"
    for name in ("pre-commit", "post-index-change", "post-checkout", "reference-transaction"):
        (hooks / name).write_text(evil.read_text())
        (hooks / name).chmod(0o755)
    for key, value in (
        ("core.hooksPath", str(hooks)),
        ("core.fsmonitor", str(evil)),
        ("filter.evil.clean", str(evil)),
        ("filter.evil.smudge", str(evil)),
        ("filter.evil.required", "true"),
        ("core.autocrlf", "true"),
    ):
        git(proj, "config", key, value)
    (proj / ".gitattributes").write_text("* filter=evil text eol=lf\n")
    # the user's global config and environment: a filter, and files to ignore
    home = proj.parent / "home"
    home.mkdir()
    (home / "ignore").write_text("data.txt\n")
    (home / ".gitconfig").write_text(
        f"[core]\n\tfsmonitor = {evil}\n\thooksPath = {hooks}\n\texcludesFile = {home}/ignore\n"
        f'[filter "evil"]\n\tclean = {evil}\n\tsmudge = {evil}\n\trequired = true\n'
    )
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_DIR", str(proj / ".git"))
    monkeypatch.setenv("GIT_INDEX_FILE", str(proj / ".git" / "index"))
    monkeypatch.setenv("GIT_CONFIG_PARAMETERS", f"'core.excludesfile'='{home}/ignore'")
    crlf = b"one\r\ntwo\r\n"  # `text eol=lf` would store it as LF
    (proj / "data.txt").write_bytes(crlf)
    state = tree_digest(proj / ".git")
    before = repo.snapshot()
    (proj / "data.txt").write_bytes(b"changed\n")
    after = repo.snapshot()
    assert repo.changed(before.tree, after.tree) == [b"data.txt"]  # not ignored by the user's
    undo(repo, before, after)
    assert not marker.exists()
    assert (proj / "data.txt").read_bytes() == crlf  # no filter, no line-ending conversion
    assert tree_digest(proj / ".git") == state


def test_a_huge_file_is_left_out_and_an_undo_leaves_it_alone(proj, tmp_path):
    repo = ShadowRepo(proj, tmp_path / "shadow", Limits(max_file_bytes=1000))
    big = proj / "big.bin"
    big.write_bytes(b"x" * 5000)
    before = repo.snapshot()
    assert before.skipped == (b"big.bin",)
    big.write_bytes(b"y" * 6000)
    (proj / "calc.py").write_text("edited\n")
    after = repo.snapshot()
    plan, done = undo(repo, before, after)
    assert big.read_bytes() == b"y" * 6000
    assert "a - b" in (proj / "calc.py").read_text()


def test_a_file_that_grew_over_the_limit_is_not_overwritten_by_its_old_version(proj, tmp_path):
    repo = ShadowRepo(proj, tmp_path / "shadow", Limits(max_file_bytes=1000))
    grows = proj / "log.txt"
    grows.write_text("small\n")
    before = repo.snapshot()
    grows.write_bytes(b"z" * 5000)
    after = repo.snapshot()
    plan, done = undo(repo, before, after)
    assert grows.read_bytes() == b"z" * 5000
    assert [p for p, _ in done.refused] == [b"log.txt"]
    assert "not checkpointed" in done.refused[0][1]


def test_an_ignored_file_is_not_snapshotted_and_an_undo_never_deletes_it(repo, proj):
    (proj / ".gitignore").write_text("build/\n*.log\n")
    before = repo.snapshot()
    (proj / "build").mkdir()
    (proj / "build" / "out.o").write_text("obj")
    (proj / "run.log").write_text("log")
    (proj / "calc.py").write_text("x\n")
    after = repo.snapshot()
    assert repo.changed(before.tree, after.tree) == [b"calc.py"]
    undo(repo, before, after)
    assert (proj / "build" / "out.o").exists() and (proj / "run.log").exists()


def test_heavy_folders_are_left_out_even_without_a_gitignore(repo, proj):
    (proj / "node_modules" / "x").mkdir(parents=True)
    (proj / "node_modules" / "x" / "i.js").write_text("1")
    s = repo.snapshot()
    (proj / "calc.py").write_text("x\n")
    assert repo.changed(s.tree, repo.snapshot().tree) == [b"calc.py"]


def test_a_symlink_to_outside_is_kept_as_a_link_and_never_followed(repo, proj, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("outside\n")
    (proj / "out").symlink_to(outside)
    (proj / "pkg" / "f.txt").write_text("inside\n")
    before = repo.snapshot()
    # the turn replaces folder pkg by a link to outside, with a file of the same name there
    for f in (proj / "pkg").iterdir():
        f.unlink()
    (proj / "pkg").rmdir()
    (proj / "pkg").symlink_to(outside)
    (outside / "f.txt").write_text("outside copy\n")
    (proj / "out").unlink()
    after = repo.snapshot()
    outside_state = tree_digest(outside)
    plan, done = undo(repo, before, after)
    assert tree_digest(outside) == outside_state  # nothing written through the link
    assert (proj / "out").is_symlink() and os.readlink(proj / "out") == str(outside)
    # pkg (a link now, made by the turn) is removed, then the folder comes back
    assert (proj / "pkg").is_dir() and not (proj / "pkg").is_symlink()
    assert (proj / "pkg" / "f.txt").read_text() == "inside\n"


def test_a_folder_that_became_a_link_to_outside_is_refused_not_written_through(
    repo, proj, tmp_path
):
    outside = tmp_path / "outside"
    outside.mkdir()
    before = repo.snapshot()
    (proj / "pkg" / "util.py").write_text("agent\n")
    after = repo.snapshot()
    # afterwards (not by the turn) pkg becomes a link to outside
    (proj / "pkg" / "util.py").unlink()
    (proj / "pkg").rmdir()
    (proj / "pkg").symlink_to(outside)
    plan, done = undo(repo, before, after, overwrite=True)
    assert list(outside.iterdir()) == []
    assert done.refused and "symbolic link" in done.refused[0][1]


def test_names_with_newlines_and_bytes_that_are_not_utf8_round_trip(repo, proj):
    odd = [b"new\nline.txt", b"caf\xe9.txt", b"sp ace/\x01ctl"]
    base = os.fsencode(proj)
    for name in odd:
        p = os.path.join(base, name)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(b"before " + name)
    start = tree_digest(proj)
    before = repo.snapshot()
    for name in odd:
        with open(os.path.join(base, name), "wb") as f:
            f.write(b"after")
    with open(os.path.join(base, b"made\n\xff"), "wb") as f:
        f.write(b"new")
    after = repo.snapshot()
    assert set(repo.changed(before.tree, after.tree)) == {*odd, b"made\n\xff"}
    undo(repo, before, after)
    assert tree_digest(proj) == start
    assert show(b"caf\xe9\n.txt") == "caf\\xe9\\n.txt"


def test_a_nested_repository_is_not_copied(repo, proj):
    git(proj / "pkg", "init", "-q")
    s = repo.snapshot()
    (proj / "pkg" / "util.py").write_text("changed inside the nested repo\n")
    assert repo.changed(s.tree, repo.snapshot().tree) == []


def test_a_first_snapshot_of_too_many_files_leaves_the_biggest_folder_out(proj, tmp_path):
    for i in range(5):
        (proj / "pkg" / f"m{i}.py").write_text("x\n")
    repo = ShadowRepo(proj, tmp_path / "shadow", Limits(max_files=2))
    snap = repo.snapshot()
    assert snap.left == ((b"pkg/", 6),)
    assert repo.changed(EMPTY_TREE, snap.tree) == [b"calc.py"]


# -- what the turn hid (issue 22 item 13) -----------------------------------------------------
PLANT = {"sitecustomize.py": "import os  # runs in every python\n", "pkg/evil.pth": "import x\n"}


def plant(proj: Path, ignores: dict[str, str]) -> None:
    for rel, text in {**ignores, **PLANT}.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)


@pytest.mark.parametrize(
    ("before", "turn"),
    [
        ({}, {".gitignore": "*\n"}),  # a new, self-ignoring .gitignore
        ({".gitignore": "build/\n"}, {".gitignore": "build/\n*\n"}),  # an edited one
        ({}, {"pkg/.gitignore": "*\n", ".gitignore": ".gitignore\nsitecustomize.py\n"}),
        ({}, {"pkg/sub/.gitignore": "*\n", "pkg/.gitignore": "/evil.pth\n.gitignore\n"}),
    ],
    ids=["new-star", "edited", "nested-and-named", "deeper"],
)
def test_the_end_of_a_turn_obeys_the_ignore_rules_from_before_it(repo, proj, before, turn):
    plant(proj, {})
    for rel in PLANT:
        (proj / rel).unlink()
    for rel, text in before.items():
        (proj / rel).write_text(text)
    start = tree_digest(proj)
    snap = repo.snapshot()
    plant(proj, turn)
    after = repo.snapshot(rules=snap.rules)
    assert {*PLANT, *turn} <= {show(p) for p in repo.changed(snap.tree, after.tree)}
    undo(repo, snap, after)
    assert tree_digest(proj) == start


def test_a_turn_that_stops_ignoring_a_folder_does_not_make_undo_delete_it(repo, proj):
    (proj / ".gitignore").write_text("build/\n")
    (proj / "build").mkdir()
    (proj / "build" / "out.o").write_text("the user's build\n")
    start = tree_digest(proj)
    snap = repo.snapshot()
    (proj / ".gitignore").write_text("")
    after = repo.snapshot(rules=snap.rules)
    assert repo.changed(snap.tree, after.tree) == [b".gitignore"]
    undo(repo, snap, after)
    assert tree_digest(proj) == start


def test_the_rewritten_ignore_rules_match_gits_own_reading(proj):
    """A snapshot holds what ``git status`` shows as untracked, nested .gitignore files,
    negations, anchors, ``**`` and a self-ignoring folder (a venv's ``*``) included."""
    files = {
        ".gitignore": "*.log\n/top.txt\nbuild/\n!keep.log\ndocs/**/gen\n",
        "pkg/.gitignore": "*.tmp\n/local.py\nsub/deep.txt\n!important.tmp\n# c\n\\#hash\n",
        "pkg/sub/.gitignore": "!*.log\nx \n",
        "env/.gitignore": "*\n",
        "odd [dir]/.gitignore": "*.c\n",
    }
    names = [
        "a.log", "keep.log", "top.txt", "pkg/top.txt", "build/o.o", "pkg/build/o.o",
        "docs/a/gen/x.md", "docs/gen", "pkg/a.tmp", "pkg/important.tmp", "pkg/local.py",
        "pkg/sub/local.py", "pkg/sub/deep.txt", "pkg/sub/s.log", "pkg/sub/x", "pkg/#hash",
        "env/lib/site.py", "env/pyvenv.cfg", "odd [dir]/m.c", "odd [dir]/m.h", "plain.py",
    ]  # fmt: skip
    for rel, text in files.items():
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(text)
    for rel in names:
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text("x\n")
    git(proj, "init", "-q")
    native = set(git(proj, "ls-files", "-z", "--others", "--exclude-standard").split("\0"))
    repo = ShadowRepo(proj, proj.parent / "shadow")
    snap = repo.snapshot()
    held = {show(p) for p in repo.changed(EMPTY_TREE, snap.tree)}
    assert held == native - {""}
    assert "env/pyvenv.cfg" not in held and "pkg/sub/s.log" in held


def test_a_symlinked_gitignore_is_not_obeyed_as_git_does_not(repo, proj, tmp_path):
    (tmp_path / "rules").write_text("*\n")
    (proj / ".gitignore").symlink_to(tmp_path / "rules")
    held = repo.changed(EMPTY_TREE, repo.snapshot().tree)
    assert b"calc.py" in held


def test_more_new_files_than_a_checkpoint_records_leaves_the_biggest_folder(proj, tmp_path):
    repo = ShadowRepo(proj, tmp_path / "shadow", Limits(max_files=50))
    start = tree_digest(proj)
    snap = repo.snapshot()
    (proj / "calc.py").write_text("edited\n")
    (proj / "pkg" / "util.py").unlink()
    (proj / "sitecustomize.py").write_text("import os\n")
    for folder, n in (("build", 60), ("gen", 5)):
        (proj / folder).mkdir()
        for i in range(n):
            (proj / folder / f"f{i}.o").write_text("o\n")
    after = repo.snapshot(rules=snap.rules)
    assert after.left == ((b"build/", 60),)
    plan, done = undo(repo, snap, after)
    assert sorted(done.written) == [b"calc.py", b"pkg/util.py"]
    assert b"sitecustomize.py" in done.removed and not (proj / "gen").exists()
    assert len(list((proj / "build").iterdir())) == 60  # left, and said so (rewind.py)
    for f in (proj / "build").iterdir():
        f.unlink()
    (proj / "build").rmdir()
    assert tree_digest(proj) == start


def test_one_big_folder_is_looked_into_rather_than_left_whole():
    from larik.agent.checkpoint_rules import choose_left

    paths = [b"packages/a/%d" % i for i in range(40)] + [b"packages/b/%d" % i for i in range(5)]
    paths += [b"src/x.py", b"README"]
    assert choose_left(paths, 10) == [(b"packages/a/", 40)]
    # a folder of files only: left whole, not file by file
    flat = [b"out/%d" % i for i in range(100)] + [b"a.py"]
    assert choose_left(flat, 50) == [(b"out/", 100)]
    assert choose_left(flat, 200) == []


def test_a_git_repository_the_turn_made_is_named(repo, proj):
    git(proj / "pkg", "init", "-q")  # one that was there before: not the turn's
    snap = repo.snapshot()
    (proj / "vendor").mkdir()
    git(proj / "vendor", "init", "-q")
    (proj / "vendor" / "sitecustomize.py").write_text("import os\n")
    after = repo.snapshot(rules=snap.rules)
    assert after.repos == (b"vendor/",)


def test_no_git_is_a_clear_error(repo, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(CheckpointError, match="git is not installed"):
        repo.snapshot()


def test_the_store_is_private_and_outside_the_project(repo, proj):
    repo.snapshot()
    assert not any(p.name == "shadow" for p in proj.rglob("*"))
    assert (repo.git_dir.stat().st_mode & 0o777) == 0o700
