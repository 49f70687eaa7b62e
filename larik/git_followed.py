"""What the user's git follows out of its config into files: the hooks it runs, the config and
attributes it reads, the programs its keys name (issue 42 item 2).

``.git/config`` is protected (:mod:`larik.protected`), but a config can send git elsewhere: a
``core.hooksPath = .githooks`` makes ``.githooks/pre-commit`` run at the user's next commit, an
``include.path = ../.gitconfig.shared`` makes that file config (its ``core.fsmonitor`` runs at
the next ``git status``), a ``diff.nb.textconv = python3 tools/nbconv.py`` runs that script on
``git diff``. :func:`targets` reads the keys of :data:`FOLLOWED` with git itself, from every
file git reads for the repository a folder is in (system, global, the repository's, a
worktree's, and every file they include), and says what they point at; the file tools ask
before writing there and the OS sandbox keeps it read-only, as for ``.git/hooks``.

Which keys: those whose value names a file git **runs** (a hooks folder; a program or a command
line: an editor, a pager, a filter, a diff or merge driver, a credential helper, an alias
starting with ``!``, …), **reads as config** (``include.path``, ``includeIf.*.path``, followed
whatever the condition: a branch switch or a moved folder can make it hold) or **reads as
attributes** (``core.attributesFile``: attributes choose which filter and diff driver run, as
``.git/info/attributes`` does). Not followed: files git reads as data and runs nothing from
(``core.excludesFile``, ``commit.template``, ``mailmap.file``, ``blame.ignoreRevsFile``,
``gpg.ssh.allowedSignersFile``, certificates). A command line is read as bash reads it
(:mod:`larik.shell`): its program when that is a path (``./x``; a bare name is found on
``PATH``), and each argument that is a path (has a ``/``) or names a file when the config is
read (``python3 conv.py``); relative to the top of the work tree, where git runs them.

A hooks folder is kept whole (a hook may source its neighbours), except one that is the
folder asked about or above it (``core.hooksPath = .``): there only the hooks' own names.
husky's ``.husky/_`` holds stubs that run ``.husky/<hook>``: those names are kept too.

The answer is cached per folder and read again when a file it came from changes (its size,
time or inode), or one that was missing appears: a config edited during a session protects
its new targets at the next write or command. git is run with no hook and no fsmonitor, with
``GIT_*`` variables dropped but those that say where the user's config is; when it cannot
read the config (no git, a broken config) the answer is empty — the user's git cannot read it
either.
"""

from __future__ import annotations

import fnmatch
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from . import host_programs

__all__ = ["FOLLOWED", "HOOK_NAMES", "Follows", "Target", "targets"]

#: The hooks git runs (githooks(5)); in a hooks folder that is the project's top only these.
HOOK_NAMES = (
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "pre-rebase",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-receive",
    "update",
    "proc-receive",
    "post-receive",
    "post-update",
    "reference-transaction",
    "push-to-checkout",
    "pre-auto-gc",
    "post-rewrite",
    "sendemail-validate",
    "fsmonitor-watchman",
    "p4-changelist",
    "p4-prepare-changelist",
    "p4-post-changelist",
    "p4-pre-submit",
    "post-index-change",
)


@dataclass(frozen=True, slots=True)
class Follows:
    """A config key (lower case, ``*`` for a subsection) whose value git follows, and how:
    ``hooks`` a folder whose hooks run; ``config`` a file read as config (relative to the file
    naming it); ``attributes`` a file read as attributes; ``runs`` a program or command line
    (``bang``: only a value starting with ``!`` is one, as an alias)."""

    key: str
    kind: str
    bang: bool = False


#: Every key whose value names a file git runs or reads as config or attributes.
FOLLOWED: tuple[Follows, ...] = (
    Follows("core.hookspath", "hooks"),
    Follows("include.path", "config"),
    Follows("includeif.*.path", "config"),
    Follows("core.attributesfile", "attributes"),
    *(
        Follows(key, "runs")
        for key in (
            "core.fsmonitor",
            "core.sshcommand",
            "core.editor",
            "core.pager",
            "core.askpass",
            "core.gitproxy",
            "core.alternaterefscommand",
            "sequence.editor",
            "diff.external",
            "diff.*.textconv",
            "diff.*.command",
            "filter.*.clean",
            "filter.*.smudge",
            "filter.*.process",
            "merge.*.driver",
            "mergetool.*.cmd",
            "mergetool.*.path",
            "difftool.*.cmd",
            "difftool.*.path",
            "credential.helper",
            "credential.*.helper",
            "gpg.program",
            "gpg.*.program",
            "gpg.ssh.defaultkeycommand",
            "pager.*",
            "interactive.difffilter",
            "remote.*.uploadpack",
            "remote.*.receivepack",
            "sendemail.smtpserver",
            "sendemail.sendmailcmd",
            "sendemail.tocmd",
            "sendemail.cccmd",
            "browser.*.cmd",
            "browser.*.path",
            "man.*.cmd",
            "man.*.path",
            "tar.*.command",
            "trailer.*.command",
            "trailer.*.cmd",
            "guitool.*.cmd",
            "instaweb.httpd",
            "uploadpack.packobjectshook",
        )
    ),
    Follows("alias.*", "runs", bang=True),
    Follows("submodule.*.update", "runs", bang=True),
)

MAX_DEPTH = 10  # includes within includes (git's own limit)
MAX_FILES = 64  # config files read for one repository
MAX_TARGETS = 1000  # what one repository's config may point at
MAX_VALUE = 4096  # a longer value is no path, and no command line worth reading
TIMEOUT = 10.0
FRESH_NS = 2_000_000_000  # a file changed this close to a read is read again (coarse clocks)
# the variables that say where the user's own config is; every other GIT_* is dropped
KEPT_ENV = ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM")


@dataclass(frozen=True, slots=True)
class Target:
    """A file git follows (``tree``: a folder and everything under it), absolute, and why."""

    path: Path
    tree: bool
    why: str

    def covers(self, path: Path) -> bool:
        """Whether writing ``path`` (absolute, normalised) writes this target. Compared
        case-folded, as :mod:`larik.protected` compares names."""
        mine = tuple(s.casefold() for s in self.path.parts)
        theirs = tuple(s.casefold() for s in path.parts)
        return theirs == mine or (self.tree and theirs[: len(mine)] == mine)


def targets(folder: Path | str) -> tuple[Target, ...]:
    """What the config of the repository ``folder`` is in points git at (each also with its
    symlinks followed); cached until a file it came from changes."""
    folder = Path(os.path.abspath(folder))
    with _LOCK:
        hit = _CACHE.get(folder)
    if hit is not None and hit[0] == _stamp(hit[1]):
        return hit[2]
    started = time.time_ns()
    found, files = _read(folder)
    stamp = _stamp(files, fresh_after=started - FRESH_NS)
    with _LOCK:
        if len(_CACHE) > 64:
            _CACHE.clear()
        _CACHE[folder] = (stamp, files, found)
    return found


_LOCK = threading.Lock()
_CACHE: dict[Path, tuple[tuple[object, ...], tuple[Path, ...], tuple[Target, ...]]] = {}


def _stamp(files: tuple[Path, ...], fresh_after: int | None = None) -> tuple[object, ...]:
    """What each file is now (None: missing). A file changed after ``fresh_after`` may have
    changed while git read it, in the same tick: that stamp matches nothing, so the next look
    reads again."""
    out: list[object] = []
    for f in files:
        try:
            st = os.stat(f)
        except (OSError, ValueError):
            out.append(None)
            continue
        if fresh_after is not None and max(st.st_mtime_ns, st.st_ctime_ns) >= fresh_after:
            out.append(object())
            continue
        out.append((st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns))
    return tuple(out)


# ---------------------------------------------------------------------------- running git


def _git(args: list[str], cwd: Path) -> bytes | None:
    """git's output, or None when it cannot run or fails. The one place this module runs git:
    :func:`larik.host_programs.project_git`, with no ``GIT_*`` variable but where the user's
    config lives (:data:`KEPT_ENV`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_") or k in KEPT_ENV}
    env["LC_ALL"] = "C"
    return host_programs.project_git(args, cwd, timeout=TIMEOUT, env=env)


def _repository(folder: Path) -> tuple[Path, Path, Path] | None:
    """The git directory, common directory and top (the git directory when bare) of the
    repository git finds from ``folder``, or None."""
    out = _git(
        [
            "rev-parse",
            "--absolute-git-dir",
            "--git-common-dir",
            "--is-bare-repository",
            "--show-cdup",
        ],
        folder,
    )
    if out is None:
        return None
    lines = out.decode("utf-8", "surrogateescape").split("\n")
    if len(lines) < 3:
        return None
    gitdir = Path(lines[0])
    common = Path(os.path.normpath(folder / lines[1]))
    top = gitdir if lines[2] == "true" else Path(os.path.normpath(folder / lines[3]))
    return gitdir, common, top


Entry = tuple[Path | None, str, str | None, int]  # origin file, key, value, include depth


def _entries(args: list[str], cwd: Path, *, scoped: bool, depth: int) -> list[Entry]:
    """``git config --list -z --show-origin`` read: the values set on git's command line (ours)
    are left out."""
    out = _git(["config", "--list", "-z", "--show-origin", "--no-includes", *args], cwd)
    if out is None:
        return []
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    size = 3 if scoped else 2
    entries: list[Entry] = []
    for i in range(0, len(fields) - size + 1, size):
        if scoped and fields[i] == "command":
            continue
        origin, item = fields[i + size - 2], fields[i + size - 1]
        key, nl, value = item.partition("\n")
        where = None
        if origin.startswith("file:"):
            where = Path(os.path.normpath(cwd / origin.removeprefix("file:")))
        entries.append((where, key.lower(), value if nl else None, depth))
    return entries


# ---------------------------------------------------------------------------- reading


def _read(folder: Path) -> tuple[tuple[Target, ...], tuple[Path, ...]]:
    """The targets, and the files whose change means reading again."""
    watched = [folder / ".git", *_global_files()]
    repo = _repository(folder)
    if repo is None:
        watched += [p / ".git" for p in folder.parents]  # a `git init` above makes one
        return (), tuple(watched)
    gitdir, common, top = repo
    for d in (gitdir, common):
        watched += [d / "config", d / "config.worktree", d / "commondir"]
    # from the top, as git shows the origins (relative to where it works: the top)
    walk = _Walk(folder, top, _entries(["--show-scope"], top, scoped=True, depth=0))
    walk.run()
    return _with_real(walk.found[:MAX_TARGETS]), tuple(dict.fromkeys([*watched, *walk.watched]))


class _Walk:
    """The entries of a repository's config, and of every file they include, read in turn."""

    def __init__(self, folder: Path, top: Path, entries: list[Entry]) -> None:
        self.folder, self.top, self.entries = folder, top, entries
        self.found: list[Target] = []
        self.watched: list[Path] = []
        self.read: set[Path] = set()

    def run(self) -> None:
        i = 0
        while i < len(self.entries) and len(self.found) < MAX_TARGETS:
            self.take(*self.entries[i])
            i += 1

    def take(self, origin: Path | None, key: str, value: str | None, depth: int) -> None:
        if origin is not None:
            self.watched.append(origin)
        kind = _kind(key)
        if kind is None or value is None:
            return
        why, top = _why(key, origin, self.top), self.top
        if kind.kind == "config":
            self.include(value, origin.parent if origin is not None else top, why, depth)
        elif kind.kind == "hooks":
            path = _path(value, top)
            self.found += _hooks(path, why, self.folder) if path is not None else []
        elif kind.kind == "attributes":
            path = _path(value, top)
            self.found += [Target(path, False, why)] if path is not None else []
        else:
            self.found += [Target(p, False, why) for p in _runs(value, top, bang=kind.bang)]

    def include(self, value: str, base: Path, why: str, depth: int) -> None:
        """An included file: kept whether or not it exists or its condition holds, and read."""
        path = _path(value, base)
        if path is None:
            return
        self.found.append(Target(path, False, why))
        self.watched.append(path)
        if path not in self.read and len(self.read) < MAX_FILES and depth < MAX_DEPTH:
            self.read.add(path)
            self.entries.extend(_included(path, depth + 1))


def _included(path: Path, depth: int) -> list[Entry]:
    if not path.is_file():
        return []
    return _entries(["--file", str(path)], path.parent, scoped=False, depth=depth)


def _global_files() -> list[Path]:
    """Where git looks for the user's and the system's config."""
    out = [Path("/etc/gitconfig")]
    for name in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        if os.environ.get(name):
            out.append(Path(os.environ[name]))
    home = os.environ.get("HOME")
    if home:
        out.append(Path(home) / ".gitconfig")
    xdg = os.environ.get("XDG_CONFIG_HOME") or (f"{home}/.config" if home else "")
    if xdg:
        out.append(Path(xdg) / "git" / "config")
    return out


def _kind(key: str) -> Follows | None:
    for f in FOLLOWED:
        if fnmatch.fnmatchcase(key, f.key):
            return f
    return None


def _why(key: str, origin: Path | None, top: Path) -> str:
    if origin is None:
        return key
    try:
        shown = origin.relative_to(top).as_posix()
    except ValueError:
        shown = str(origin)
    return f"{key} in {shown}"


def _path(value: str, base: Path) -> Path | None:
    """A path value as git reads it: ``~`` expanded, relative to ``base``; None for one that
    names no file (empty, too long, an install prefix)."""
    value = value.strip()
    if not value or len(value) > MAX_VALUE or "\0" in value or value.startswith("%(prefix)"):
        return None
    if value.startswith("~"):
        value = os.path.expanduser(value)
        if value.startswith("~"):  # an unknown user
            return None
    try:
        return Path(os.path.normpath(base / value))
    except (ValueError, TypeError):
        return None


def _hooks(path: Path, why: str, folder: Path) -> list[Target]:
    """A hooks folder: whole, or only the hooks' names when it holds ``folder`` itself."""
    if folder.is_relative_to(path):
        return [Target(path / name, False, why) for name in HOOK_NAMES]
    out = [Target(path, True, why)]
    if path.name == "_":  # husky: .husky/_/pre-commit runs .husky/pre-commit
        out += [Target(path.parent / name, False, f"{why} (husky)") for name in HOOK_NAMES]
    return out


_NOT_A_PATH = set("$%`*?{}<>|;&=")


def _runs(value: str, top: Path, *, bang: bool) -> list[Path]:
    """The files in a program or command line that git runs from ``top``."""
    line = value.strip()
    if bang:
        if not line.startswith("!"):
            return []
        line = line[1:].strip()
    if not line or len(line) > MAX_VALUE:
        return []
    out: list[Path] = []
    if "/" in line:  # a program path, spaces and all when it is one (run without a shell)
        whole = _path(line, top)
        if whole is not None and (len(line.split()) == 1 or os.path.lexists(whole)):
            out.append(whole)
    from . import shell  # lazy: tree-sitter

    for command in shell.parse(line).commands:
        for i, word in enumerate(command.words):
            text = word.value  # None: bash expands it further, known only when it runs
            if not text or text.startswith("-") or _NOT_A_PATH & set(text):
                continue
            if "/" not in text and (i == 0 or not (top / text).is_file()):
                continue  # a program found on PATH; an argument that is no file
            path = _path(text, top)
            if path is not None:
                out.append(path)
    return out


def _with_real(found: list[Target]) -> tuple[Target, ...]:
    """Each target, and the same with its symlinks followed (a link planted in its place
    leads the write elsewhere)."""
    out = list(found)
    for t in found:
        try:
            real = t.path.resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if real != t.path:
            out.append(Target(real, t.tree, t.why))
    return tuple(dict.fromkeys(out))
