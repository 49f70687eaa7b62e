"""What the sandbox keeps read-only in a folder it lets a command write (issue 22 items 3, 4).

A writable folder (the project, a ``writable`` path) holds files that decide what runs *next
time*, outside any sandbox: Larik's and Claude Code's config, commands, skills and instruction
files (:data:`larik.protected.PROTECTED`), and what the user's own git runs — a repository's
config (``core.fsmonitor``, ``core.hooksPath``, aliases, filters), its hooks, a ``commondir``
that moves all of that elsewhere, and every file that config points git at (a hooks folder, an
included config, a program a key names: :mod:`larik.git_followed`, read anew before each
command, so a config changed during a session keeps its new targets). A command must not
change them. Three means, per path:

- **read-only** (``--ro-bind`` onto itself): what exists. A mount point cannot be written,
  removed or renamed, and a read-only folder holds nothing new. Through a symlink the target is
  bound, and the link itself is watched (below), since a link is not a mount point.
- **pinned** (``--bind`` onto itself): every folder between the writable folder and a read-only
  path, and each git directory — ``.git`` itself, each ``modules/**`` (a submodule's, nested
  ones too) and ``worktrees/*`` one. ``mv .git .g && mkdir .git && cp -a .g/. .git/`` would
  otherwise carry the read-only config away and put a writable copy in its place.
- **watched**: what is missing. A mount needs a mount point, and bwrap would make it in the
  user's folder (an empty ``.mcp.json`` or ``AGENTS.md`` that git then shows, or commits); so
  :class:`Guard` notes what is there before the command and, when it has ended, removes what
  it made and puts a replaced symlink back, and says so. Inside ``.git`` nobody sees a mount
  point, so a missing ``hooks`` folder becomes an empty read-only one instead.

A new ``.git`` at the folder's top (``git init`` where there was none) stays when it is a plain
repository — hooks only ``*.sample``, config only keys that run nothing (:data:`PLAIN_CONFIG`)
— and is removed otherwise; a new ``.git`` file (a pointer to a git directory elsewhere) is
removed. What is not covered: a nested repository further down (``sub/.git``), which the user's
git enters when run there, and from the project when it is a gitlink in the index
(docs/security.md says so; a strict xfail test holds it).
"""

from __future__ import annotations

import fnmatch
import glob
import os
import re
import shutil
import stat
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from .. import host_programs
from ..git_followed import Target
from ..protected import PROTECTED

__all__ = ["GIT_KEPT", "PROJECT_KEPT", "Guard", "Plan", "plan"]


def _entries(prefix: str) -> tuple[str, ...]:
    """The entries of PROTECTED below ``prefix`` (a folder entry without its ``/**``)."""
    out = []
    for entry in PROTECTED:
        if entry.startswith(prefix):
            out.append(entry.removeprefix(prefix).removesuffix("/**"))
    return tuple(out)


#: Relative to a writable folder: PROTECTED without git's part (``*`` within a name).
PROJECT_KEPT = tuple(e for e in _entries("") if e != ".git" and not e.startswith(".git/"))
#: Relative to any git directory (the project's ``.git``, a submodule's): what git runs.
GIT_KEPT = tuple(e for e in _entries(".git/") if "/" not in e.replace("info/", ""))
#: Relative to a linked worktree's git directory (``.git/worktrees/NAME``).
WORKTREE_KEPT = _entries(".git/worktrees/*/")
MADE_EMPTY = ("hooks",)  # inside a git directory, a missing one becomes an empty read-only one
MAX_GITDIRS = 100  # git directories looked at below one .git (submodules, worktrees)

#: Config keys a plain ``git init`` (and ordinary use) writes, none of which runs a program.
PLAIN_CONFIG = (
    "core.repositoryformatversion",
    "core.filemode",
    "core.bare",
    "core.logallrefupdates",
    "core.ignorecase",
    "core.precomposeunicode",
    "core.symlinks",
    "core.autocrlf",
    "core.eol",
    "user.name",
    "user.email",
    "init.defaultbranch",
    "extensions.objectformat",
    "remote.*.url",
    "remote.*.fetch",
    "branch.*.remote",
    "branch.*.merge",
)


@dataclass
class Plan:
    """The mounts for one writable folder, and what to watch."""

    read_only: list[Path] = field(default_factory=list)
    pinned: list[Path] = field(default_factory=list)
    emptied: list[Path] = field(default_factory=list)
    watched: list[str] = field(default_factory=list)  # absolute patterns (``*`` in a name)

    def mounts(self) -> list[str]:
        """bwrap arguments, outer folders first (a mount inside a pinned folder comes after)."""
        ops: list[tuple[int, list[str]]] = []
        for p in dict.fromkeys(self.pinned):
            ops.append((len(p.parts), ["--bind", str(p), str(p)]))
        for p in dict.fromkeys(self.read_only):
            ops.append((len(p.parts), ["--ro-bind", str(p.resolve()), str(p)]))
        for p in self.emptied:
            ops.append((len(p.parts), ["--tmpfs", str(p), "--remount-ro", str(p)]))
        ops.sort(key=lambda op: op[0])
        return [arg for _, args in ops for arg in args]


def _kind(path: Path | str) -> str | None:
    """The kind of ``path`` ("link", "dir", "file"), or None: missing. A link not followed."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        return "link"
    return "dir" if stat.S_ISDIR(mode) else "file"


def _keep(folder: Path, rel: str, out: Plan, *, empty: bool = False) -> None:
    """Plan one entry ``rel`` (may hold ``*``) of ``folder``."""
    pattern = os.path.join(glob.escape(str(folder)), rel)  # the folder's own name literal
    matches = [Path(p) for p in _glob(pattern)]
    if not matches and empty and not _MAGIC.search(rel):
        out.emptied.append(folder / rel)  # made in place, read-only: nothing to watch
        return
    out.watched.append(pattern)  # what appears, or a link that changes, is undone after
    for path in matches:
        kind = _kind(path)
        if kind == "link":
            try:
                target = path.resolve(strict=True)
            except (OSError, RuntimeError):
                continue  # dangling: nothing to bind; the link itself is watched
            if target.is_relative_to(folder):  # outside: read-only already (or writable: yours)
                out.read_only.append(target)
                _pin_between(folder, target, out)
            continue
        out.read_only.append(path)
        _pin_between(folder, path, out)


def _pin_between(folder: Path, path: Path, out: Plan) -> None:
    for parent in path.parents:
        if parent == folder or not parent.is_relative_to(folder):
            break
        if _kind(parent) == "dir":
            out.pinned.append(parent)


def _gitdirs(git: Path) -> tuple[list[Path], list[Path]]:
    """The git directories under ``git`` itself included: full ones (``git``, each submodule's
    under ``modules/``, nested), and linked worktrees' (``worktrees/*``)."""
    full: list[Path] = [git]
    linked: list[Path] = []
    stack = [git]
    while stack and len(full) + len(linked) < MAX_GITDIRS:
        gitdir = stack.pop()
        modules = gitdir / "modules"
        if _kind(modules) == "dir":
            walk = [modules]
            while walk and len(full) < MAX_GITDIRS:
                here = walk.pop()
                for entry in _subdirs(here):
                    if _kind(entry / "HEAD") == "file":
                        full.append(entry)
                        stack.append(entry)
                    else:  # a submodule named a/b: a folder on the way
                        walk.append(entry)
        for entry in _subdirs(gitdir / "worktrees"):
            linked.append(entry)
    return full, linked


def _subdirs(folder: Path) -> list[Path]:
    try:
        with os.scandir(folder) as it:
            return [Path(e.path) for e in it if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


_WORKTREE = re.compile(r"^\s*worktree\s*=\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)


def _checkout_of(gitdir: Path) -> Path | None:
    """Where a submodule's git directory has its files (``core.worktree``, relative to it)."""
    try:
        text = (gitdir / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    m = _WORKTREE.search(text)
    if not m:
        return None
    return Path(os.path.normpath(gitdir / m.group(1).strip('"')))


def plan(folder: Path, followed: Iterable[Target] = ()) -> Plan:
    """What to keep in writable folder ``folder`` (resolved): and of ``followed`` (what the
    user's git follows out of its config, :mod:`larik.git_followed`), what lies inside it."""
    out = Plan()
    for rel in PROJECT_KEPT:
        _keep(folder, rel, out)
    for rel in _inside(folder, followed):
        _keep(folder, rel, out)
    git = folder / ".git"
    kind = _kind(git)
    if kind == "link":  # watched; the git directory it leads to kept when it is in the folder
        out.watched.append(glob.escape(str(git)))
        try:
            git = git.resolve(strict=True)
        except (OSError, RuntimeError):
            return out
        if not git.is_dir() or not git.is_relative_to(folder):
            return out  # outside: read-only already (or writable by the user's own choice)
    elif kind != "dir":  # a file points elsewhere: read-only; a missing one watched
        _keep(folder, ".git", out)
        return out
    out.pinned.append(git)
    _pin_between(folder, git, out)
    full, linked = _gitdirs(git)
    for gitdir in full:
        if gitdir != git:
            out.pinned.append(gitdir)
            _pin_between(folder, gitdir, out)
            checkout = _checkout_of(gitdir)
            if checkout is not None and checkout.is_relative_to(folder):
                if _kind(checkout / ".git") == "file":  # a submodule's pointer to it
                    out.read_only.append(checkout / ".git")
                    _pin_between(folder, checkout / ".git", out)
        for rel in GIT_KEPT:
            _keep(gitdir, rel, out, empty=rel in MADE_EMPTY)
    for gitdir in linked:
        out.pinned.append(gitdir)
        _pin_between(folder, gitdir, out)
        for rel in WORKTREE_KEPT:
            _keep(gitdir, rel, out)
    out.watched.append(glob.escape(str(git)))  # the .git a command must not replace: checked after
    return out


def _inside(folder: Path, followed: Iterable[Target]) -> list[str]:
    """The targets strictly inside ``folder``, as patterns relative to it (their own ``*``,
    ``?`` and ``[`` taken literally). One that is the folder or holds it is not kept: the
    folder would be read-only (a hooks folder there is its hooks' names already)."""
    out = []
    for t in followed:
        if t.path != folder and t.path.is_relative_to(folder):
            out.append(glob.escape(t.path.relative_to(folder).as_posix()))
    return list(dict.fromkeys(out))


# ------------------------------------------------------------------------ after the command

_MAGIC = re.compile(r"[*?[]")


def _glob(pattern: str) -> list[str]:
    """What ``pattern`` (``*`` in its last names only; ``[*]`` a literal one) matches; cheap
    when nothing does."""
    magic = _MAGIC.search(pattern)
    if magic is None:
        return [pattern] if _kind(pattern) else []
    fixed = pattern[: magic.start()].rsplit("/", 1)[0]
    if _kind(fixed) != "dir":  # .claude missing: nothing to match
        return []
    return glob.glob(pattern, include_hidden=True)


def _state(pattern: str) -> dict[str, tuple[str, str]]:
    """Each path ``pattern`` matches now: its kind, and a link's target."""
    out = {}
    for p in _glob(pattern):
        kind = _kind(p)
        if kind is not None:
            out[p] = (kind, os.readlink(p) if kind == "link" else "")
    return out


def plain_repository(gitdir: Path) -> str:
    """ "" when ``gitdir`` (a new one) runs nothing: only sample hooks, only
    :data:`PLAIN_CONFIG` keys, none of the other files git would take a program from; else
    what it has."""
    hooks = [p.name for p in _files(gitdir / "hooks") if not p.name.endswith(".sample")]
    if hooks:
        return f"hooks ({', '.join(sorted(hooks))})"
    for rel in GIT_KEPT:
        if rel not in ("config", "hooks") and _kind(gitdir / rel):
            return rel
    args = ["config", "--file", str(gitdir / "config"), "--no-includes", "--name-only", "--list"]
    listed = host_programs.project_git(args, gitdir.parent, timeout=10)
    if listed is None:
        return "a config that could not be read"
    keys = [k.lower() for k in listed.decode("utf-8", "replace").split()]
    odd = [k for k in keys if not any(fnmatch.fnmatchcase(k, ok) for ok in PLAIN_CONFIG)]
    return f"config ({', '.join(odd[:3])})" if odd else ""


def _files(folder: Path) -> list[Path]:
    try:
        return list(folder.iterdir())
    except OSError:
        return []


def _remove(path: str) -> None:
    if os.path.islink(path) or not os.path.isdir(path):
        os.unlink(path)
    else:
        shutil.rmtree(path)


class Guard:
    """What a command must not make in its writable folders, noted before it runs;
    :meth:`settle` after it ends undoes what it made and says what (once)."""

    def __init__(self, plans: dict[Path, Plan]) -> None:
        self.plans = plans
        self.before = {pattern: _state(pattern) for p in plans.values() for pattern in p.watched}
        self.folders = list(plans)
        self.settled = False

    def settle(self) -> list[str]:
        if self.settled:
            return []
        self.settled = True
        undone: list[str] = []
        kept: list[str] = []
        for pattern, before in self.before.items():
            now = _state(pattern)
            for path, what in now.items():
                if before.get(path) == what:
                    continue
                if path.endswith("/.git") and path not in before and what[0] == "dir":
                    why = plain_repository(Path(path))
                    if not why:
                        kept.append(path)
                        continue
                    path_note = f"{self._shown(path)} (it has {why})"
                else:
                    path_note = self._shown(path)
                try:
                    _remove(path)
                    old = before.get(path)
                    if old is not None and old[0] == "link":
                        os.symlink(old[1], path)
                except OSError as e:
                    undone.append(f"{path_note}: could not be undone ({e.strerror})")
                    continue
                undone.append(path_note)
            for path, what in before.items():  # a link the command removed: put back
                if path not in now and what[0] == "link":
                    try:
                        os.symlink(what[1], path)
                        undone.append(self._shown(path))
                    except OSError:
                        pass
        if not undone:
            return []
        return [
            "[the sandbox undid what this command made of "
            + ", ".join(undone)
            + ": the files that decide what Larik, Claude Code or git run next time are "
            "read-only in the sandbox. Change one with write_file or edit_file (the user is "
            "asked), or run the command with sandbox: false]"
        ]

    def _shown(self, path: str) -> str:
        for folder in self.folders:
            if Path(path).is_relative_to(folder):
                return str(Path(path).relative_to(folder))
        return path
