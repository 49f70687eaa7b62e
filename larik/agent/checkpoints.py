"""Checkpoints: snapshots of a project's files in a shadow git repository outside the project.

::

    repo = ShadowRepo.for_project(root)
    before = repo.snapshot()                      # Snapshot(tree=…): the files now
    ...                                           # the agent edits, bash runs
    after = repo.snapshot()
    repo.changed(before.tree, after.tree)         # [b"calc.py", b"notes/new.txt"]
    plan = repo.plan([Step(before.tree, after.tree)])
    plan.conflicts                                # changed since `after`: ask before overwriting
    repo.apply(plan)                              # calc.py and notes/new.txt as they were

**Why a shadow git repository** (as Gemini CLI does) and not a copy of the files: git already
is a content-addressed store with a stat cache. Its index remembers each file's size and
mtime, so a snapshot hashes and stores only the files that changed since the last one, and an
unchanged file costs one ``lstat``; a file snapshot would copy (or at least hash) every file
every time, or re-implement that cache. Objects are shared between snapshots, so a thousand
checkpoints of a big project cost the changed files' bytes, not a thousand copies.

**The user's repository is never touched.** The shadow repository lives under Larik's state
folder (``<state>/checkpoints/<project key>/``) with its own objects and its own index;
``GIT_DIR`` points there and ``GIT_WORK_TREE`` at the project, so the project's ``.git`` (HEAD,
index, stash, branches, config, hooks) is never opened. Git runs with an environment built
from scratch: no ``GIT_*`` variable of the user's, ``HOME`` and ``XDG_CONFIG_HOME`` pointing
into the shadow repository, ``GIT_CONFIG_NOSYSTEM`` and ``GIT_CONFIG_GLOBAL=/dev/null``, so
neither the system's nor the user's git config (aliases, ``core.fsmonitor``, hooks, filters,
``core.excludesFile``) applies; the shadow repository's own config, written by Larik, turns
hooks, fsmonitor, CRLF conversion and gc off, and ``info/attributes`` unsets ``text``, ``eol``,
``filter``, ``ident`` and ``working-tree-encoding`` for every path, which outranks any
``.gitattributes`` in the project: no clean/smudge filter, no line-ending rewrite, ever.

**What a snapshot holds:** every file git would call tracked or untracked-not-ignored: the
project's ``.gitignore`` files apply (and ``LIMITS.excluded``, heavy folders such as
``node_modules/`` and ``.venv/``, in a folder that is not a git repository as well). Left out,
and so never restored nor deleted by an undo: ignored files, files over
``LIMITS.max_file_bytes`` (5 MiB), nested git repositories, ``.git`` folders, empty folders,
and what is neither a regular file nor a symlink (a FIFO, a socket in a file's place counts as
the file removed). Python bytecode a turn wrote is removed all the same (:meth:`bytecode`).
The ignore rules are those of the snapshot before the turn, never the ones the turn wrote
(``snapshot(rules=before.rules)``; :mod:`.checkpoint_rules`). More than ``LIMITS.max_files``
new files at once (the first snapshot of a home folder, a turn that generates a build) are not
all stored: the biggest folders are left out and named (:attr:`Snapshot.left`), and the rest
is recorded, so an undo still restores everything else.

**Restoring** is done here in Python, not by ``git checkout``, so every write is checked:
each folder on the way is opened with ``O_NOFOLLOW`` relative to the one before (a folder that
has become a symlink, say to outside the project, is refused, never written through), a file
is written to a temporary name in its folder and renamed over the old one (a symlink in its
place is replaced, not followed), a ``.git`` path component or ``..`` is refused, and a file
that is now over the size limit is left alone and reported (:func:`.checkpoint_files.restore`).
A file that cannot be written (a full disk) is reported in :attr:`Restored.refused`, as it was.

Paths are bytes (git's ``-z`` output) so names that are not UTF-8, or hold newlines, work;
:func:`show` makes one printable.
"""

from __future__ import annotations

import fcntl
import os
import re
import stat
import subprocess
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .. import host_programs
from ..llm.errors import LarikError
from . import checkpoint_bytecode as pyc
from . import checkpoint_files as cfiles
from . import checkpoint_rules as rules_file
from .checkpoint_files import show

__all__ = [
    "EMPTY_TREE",
    "LIMITS",
    "CheckpointError",
    "Entry",
    "Limits",
    "Plan",
    "Restored",
    "ShadowRepo",
    "Snapshot",
    "Step",
    "checkpoints_dir",
    "show",
]


class CheckpointError(LarikError):
    """A snapshot or a restore could not be done (no git, too many files, a broken store)."""


@dataclass(frozen=True, slots=True)
class Limits:
    max_file_bytes: int = 5 * 1024 * 1024
    """A file bigger than this is not snapshotted (and an undo leaves it alone)."""
    max_files: int = 50_000
    """More new files than this in one snapshot: the biggest folders are left out."""
    timeout: float = 60.0
    """Seconds one git command may take."""
    excluded: tuple[str, ...] = (
        "node_modules/",
        ".venv/",
        "venv/",
        "__pycache__/",
        ".tox/",
        ".nox/",
        ".mypy_cache/",
        ".pytest_cache/",
        ".ruff_cache/",
        ".DS_Store",
    )
    """Never snapshotted, even where no .gitignore says so (gitignore patterns)."""


LIMITS = Limits()
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"  # git's id of the tree of no files
MAX_IGNORE_FILE = 1024 * 1024  # bytes of one .gitignore read (a bigger one is not obeyed)

_CONFIG = """\
[core]
\trepositoryformatversion = 0
\tbare = false
\tfilemode = true
\tsymlinks = true
\tignorecase = false
\tautocrlf = false
\tsafecrlf = false
\thooksPath = /dev/null
\tfsmonitor = false
\tuntrackedCache = false
\tquotePath = false
\tpreloadIndex = true
\tsparseCheckout = false
\texcludesFile = /dev/null
\tattributesFile = /dev/null
[gc]
\tauto = 0
[maintenance]
\tauto = false
[commit]
\tgpgSign = false
[index]
\tversion = 4
"""
# info/attributes outranks every .gitattributes: nothing is converted on the way in
_ATTRIBUTES = "* -text -eol -filter -ident -working-tree-encoding -diff -merge\n"
# given on every command too: the shadow config cannot be relied on alone
_FLAGS = ("-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false")


@dataclass(frozen=True, slots=True)
class Snapshot:
    tree: str  # the id of the files' state (a git tree in the shadow repository)
    skipped: tuple[bytes, ...] = ()  # files over the size limit, left out
    rules: str = ""  # the rules file a snapshot after the turn must use (checkpoint_rules)
    left: tuple[tuple[bytes, int], ...] = ()  # folders not recorded: too many new files
    repos: tuple[bytes, ...] = ()  # nested repositories new since ``rules`` (``b"name/"``)
    big: tuple[bytes, ...] = ()  # of ``skipped``, those that were not over the limit then


@dataclass(frozen=True, slots=True)
class Entry:
    """A file as a tree holds it: ``mode`` (100644, 100755, 120000) and blob ``oid``."""

    mode: str
    oid: str


@dataclass(frozen=True, slots=True)
class Step:
    """One turn to take back: the tree before it and the tree it left."""

    before: str
    after: str


@dataclass
class Plan:
    """What taking back some steps would do, worked out before anything is written.

    ``target``: per path, what it becomes (None: it is removed). ``conflicts``: paths whose
    current content is not what the step left, i.e. changed since (by the user, or anything
    else): they are only overwritten when the caller says so. ``bytecode``: Python bytecode
    written since the oldest step began (:mod:`.checkpoint_bytecode`), removed."""

    current: Snapshot
    target: dict[bytes, Entry | None] = field(default_factory=dict)
    conflicts: list[bytes] = field(default_factory=list)
    bytecode: list[bytes] = field(default_factory=list)  # written since: removed, never kept

    @property
    def paths(self) -> list[bytes]:
        return sorted(self.target)


@dataclass
class Restored:
    """What :meth:`ShadowRepo.apply` did. ``refused``: what it could not restore (a full disk,
    a folder where a file was, a folder that became a symlink): the steps are not all taken
    back, and taking them back again is what the caller offers."""

    written: list[bytes] = field(default_factory=list)  # restored or re-created
    removed: list[bytes] = field(default_factory=list)  # files the steps had created
    kept: list[bytes] = field(default_factory=list)  # conflicts left as the user has them
    refused: list[tuple[bytes, str]] = field(default_factory=list)  # (path, why)
    bytecode: list[bytes] = field(default_factory=list)  # caches written since, removed

    @property
    def changed(self) -> list[bytes]:
        return sorted({*self.written, *self.removed})

    @property
    def complete(self) -> bool:
        """Whether every path was restored or removed (or kept, as asked)."""
        return not self.refused


def checkpoints_dir(root: Path) -> Path:
    """The shadow repository of project ``root``: ``<state>/checkpoints/<project key>``."""
    from ..config import state_dir
    from .sessions import project_key

    return state_dir() / "checkpoints" / project_key(root)


class ShadowRepo:
    """The shadow repository of one project. Safe to use from several threads and processes
    at once: every operation holds a lock on the repository."""

    def __init__(self, root: Path, git_dir: Path, limits: Limits = LIMITS) -> None:
        self.root = Path(root).resolve()
        self.git_dir = Path(git_dir).absolute()
        self.limits = limits
        self._ready = False

    @classmethod
    def for_project(cls, root: Path, limits: Limits = LIMITS) -> ShadowRepo:
        return cls(root, checkpoints_dir(Path(root).resolve()), limits)

    # -- git ----------------------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        home = str(self.git_dir)
        return {
            "PATH": host_programs.safe_path(roots=(self.root,)),
            "HOME": home,
            "XDG_CONFIG_HOME": home,
            "GIT_DIR": home,
            "GIT_WORK_TREE": str(self.root),
            "GIT_INDEX_FILE": str(self.git_dir / "index"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_NO_REPLACE_OBJECTS": "1",
            "GIT_AUTHOR_NAME": "larik",
            "GIT_AUTHOR_EMAIL": "larik@localhost",
            "GIT_COMMITTER_NAME": "larik",
            "GIT_COMMITTER_EMAIL": "larik@localhost",
            "LC_ALL": "C",
        }

    def _git(self, *args: str, stdin: bytes | None = None) -> bytes:
        try:
            proc = subprocess.run(
                [host_programs.find("git", self.root), *_FLAGS, *args],
                input=stdin,
                capture_output=True,
                env=self._env(),
                cwd=self.root,
                timeout=self.limits.timeout,
                check=False,
            )
        except host_programs.NotOwn as e:
            raise CheckpointError(f"{e}: checkpoints need it") from None
        except FileNotFoundError:
            raise CheckpointError("git is not installed: checkpoints need it") from None
        except subprocess.TimeoutExpired:
            raise CheckpointError(
                f"git {args[0]} took over {self.limits.timeout:.0f} s (the project is too big "
                "to checkpoint)"
            ) from None
        except OSError as e:
            raise CheckpointError(f"cannot run git: {e.strerror or e}") from None
        if proc.returncode != 0:
            why = proc.stderr.decode("utf-8", "replace").strip().splitlines()
            raise CheckpointError(f"git {args[0]} failed: {why[-1] if why else proc.returncode}")
        return proc.stdout

    @contextmanager
    def _locked(self) -> Iterator[None]:
        self._init()
        fd = os.open(self.git_dir / "larik.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # releases the lock

    def _init(self) -> None:
        if self._ready:
            return
        if not self.root.is_dir():
            raise CheckpointError(f"{self.root}: not a folder")
        d = self.git_dir
        try:
            if not (d / "HEAD").is_file():
                for sub in (d, d / "objects", d / "refs", d / "info"):
                    sub.mkdir(mode=0o700, parents=True, exist_ok=True)
                (d / "HEAD").write_text("ref: refs/heads/larik\n")
            (d / "info").mkdir(mode=0o700, exist_ok=True)
            _write_if_changed(d / "config", _CONFIG)
            _write_if_changed(d / "info" / "attributes", _ATTRIBUTES)
            _write_if_changed(d / "info" / "exclude", self._excludes())
        except OSError as e:
            raise CheckpointError(f"cannot set up the checkpoint store {d}: {e.strerror}") from None
        self._ready = True

    def _excludes(self) -> str:
        lines = ["# written by larik: never checkpointed", *self.limits.excluded]
        from ..config import state_dir

        for inner in (self.git_dir, state_dir()):  # Larik's own files, if under the project
            try:
                rel = Path(inner).resolve().relative_to(self.root)
            except ValueError:
                continue
            if rel.parts:
                lines.append(
                    "/" + os.fsdecode(rules_file.escape(os.fsencode(rel.as_posix()))) + "/"
                )
        return "\n".join(lines) + "\n"

    # -- snapshots --------------------------------------------------------------------------
    def snapshot(self, rules: str = "") -> Snapshot:
        """Record the project's files now; the snapshot is a tree in the shadow repository.
        Costs an ``lstat`` per file plus hashing what changed since the last snapshot.

        ``rules``: the :attr:`Snapshot.rules` of the snapshot before a turn, for the one after
        it: what is ignored, left out or a nested repository is what it was then, whatever
        the turn wrote (``.gitignore`` files, a new ``.git``). Without: the project's own
        ignore files now, and the result's ``rules`` records them."""
        with self._locked():
            if rules:
                text = self._rules_text(rules)
                carried = rules_file.left_of(text)
            else:
                text, carried = self._fresh_rules(), []
            found = self._list(self._store_rules(text))
            repos = sorted(p for p in found if p.endswith(b"/"))
            new = {p for p, tags in found.items() if tags == {"?"}}
            skipped, left = self._stage(set(found) - set(repos), new)
            tree = self._git("write-tree").decode().strip()
            if rules:
                big = tuple(p for p in skipped if p not in rules_file.big_of(text))
                return Snapshot(tree, skipped, rules, (*carried, *left), tuple(repos), big)
            kept = rules_file.with_left(text, left, repos, skipped)
            return Snapshot(tree, skipped, self._store_rules(kept).name, tuple(left))

    def _list(self, rules: Path) -> dict[bytes, set[str]]:
        """What differs from the shadow index (tracked files modified or deleted, new files),
        with git's tags (``?`` a new file), under the exclude file ``rules`` alone."""
        out = self._git(
            "ls-files", "-z", "-t", "--modified", "--deleted", "--others",
            f"--exclude-from={rules}",
        )  # fmt: skip
        found: dict[bytes, set[str]] = {}
        for item in out.split(b"\0"):
            if len(item) > 2:
                found.setdefault(item[2:], set()).add(item[:1].decode())
        return found

    def _fresh_rules(self) -> bytes:
        """The exclude file for the project's ignore files as they are now: Larik's own
        exclusions, then every ``.gitignore`` git reads (one that ignores itself included)."""
        spec = ":(glob)**/.gitignore"
        shown = self._git("ls-files", "-z", "--cached", "--others", "--exclude-standard", spec)
        hidden = self._git(
            "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory", spec
        )
        files = []
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            for p in sorted(set((shown + hidden).split(b"\0"))):
                if p == b".gitignore" or p.endswith(b"/.gitignore"):
                    text = cfiles.read_small(root_fd, p.split(b"/"), MAX_IGNORE_FILE)
                    if text is not None:
                        files.append((p.rpartition(b"/")[0], text))
        finally:
            os.close(root_fd)
        return rules_file.flatten(self._excludes(), files)

    def _rules_dir(self) -> Path:
        return self.git_dir / "larik-rules"

    def _store_rules(self, text: bytes) -> Path:
        """The rules file holding ``text`` (content-addressed: written once)."""
        path = self._rules_dir() / rules_file.rules_id(text)
        if not path.is_file():
            try:
                path.parent.mkdir(mode=0o700, exist_ok=True)
                tmp = path.with_name(f".{path.name}.{os.getpid()}")
                tmp.write_bytes(text)
                os.replace(tmp, path)
            except OSError as e:
                raise CheckpointError(
                    f"cannot write to the checkpoint store: {e.strerror}"
                ) from None
        return path

    def _rules_text(self, rules: str) -> bytes:
        if not re.fullmatch(r"[0-9a-f]{64}", rules):
            raise CheckpointError(f"not a checkpoint's rules: {rules[:80]!r}")
        try:
            return (self._rules_dir() / rules).read_bytes()
        except OSError:
            raise CheckpointError(
                "the checkpoint store lacks the ignore rules of the turn's checkpoint"
            ) from None

    def _stage(
        self, paths: set[bytes], new: set[bytes]
    ) -> tuple[tuple[bytes, ...], list[tuple[bytes, int]]]:
        """Put ``paths`` in the shadow index as they are on disk, or drop them; of the ``new``
        ones, at most ``max_files`` (the biggest folders are left out: the second result)."""
        update, drop, skipped = [], [], []
        plain: dict[bytes, bool] = {b"": True}  # folder -> reached without a symlink
        base = os.fsencode(self.root)
        for p in paths:
            if p.endswith(b"/"):  # a nested repository: not ours to copy
                continue
            st = None
            if cfiles.plain_dir(base, p.rpartition(b"/")[0], plain):
                try:
                    st = os.lstat(os.path.join(base, p))
                except OSError:
                    pass
            if st is None or not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
                drop.append(p)  # gone, behind a symlink, or no file now (a FIFO, a folder)
            elif stat.S_ISREG(st.st_mode) and st.st_size > self.limits.max_file_bytes:
                skipped.append(p)
                drop.append(p)
            else:
                update.append(p)
        added = [p for p in update if p in new]
        left = rules_file.choose_left(added, self.limits.max_files) or []
        if left:
            out = _under([p for p, _ in left])
            update = [p for p in update if p not in new or not out(p)]
        if drop:
            self._git("update-index", "--force-remove", "-z", "--stdin", stdin=_z(drop))
        if update:
            # --replace: a file where a folder of recorded files was, or the other way round
            args = ("update-index", "--add", "--remove", "--replace", "-z", "--stdin")
            self._git(*args, stdin=_z(update))
        return tuple(sorted(skipped)), left

    # -- bytecode (checkpoint_bytecode) -------------------------------------------------------
    def bytecode(self, rules: str = "") -> str:
        """Store the list of the Python bytecode files in the project now, where a snapshot
        under ``rules`` (a :attr:`Snapshot.rules`; without: the ignore files now) looks; the
        id of the stored list (:mod:`.checkpoint_bytecode`)."""
        found = pyc.encode(self._bytecode(rules))
        with self._locked():
            return self._git("hash-object", "-w", "--stdin", stdin=found).decode().strip()

    def bytecode_since(self, listed: str, rules: str) -> list[bytes]:
        """The bytecode files written since the list ``listed`` (:meth:`bytecode`) was made."""
        before = pyc.decode(self._blobs({listed}).get(listed, b""))
        return pyc.written(before, self._bytecode(rules))

    def _bytecode(self, rules: str) -> dict[bytes, pyc.Stamp]:
        with self._locked():
            if rules:
                self._rules_text(rules)  # a rules id, and the store holds it
                path = self._rules_dir() / rules
            else:
                path = self._store_rules(self._fresh_rules())
            ignored = self._git(
                "ls-files", "-z", "--others", "--ignored", "--directory", f"--exclude-from={path}"
            )
        return pyc.listing(ignored, os.fsencode(self.root))

    # -- comparing ------------------------------------------------------------------------
    def diff(self, before: str, after: str) -> dict[bytes, tuple[Entry | None, Entry | None]]:
        """Paths whose content, type or mode differ between two trees: (before, after) entries,
        None where a tree lacks the path. Costs what differs, not the size of the trees."""
        if before == after:
            return {}
        with self._locked():
            out = self._git("diff-tree", "-r", "-z", "--no-renames", before, after)
        fields = out.split(b"\0")
        found: dict[bytes, tuple[Entry | None, Entry | None]] = {}
        for i in range(0, len(fields) - 1, 2):
            meta, path = fields[i].decode(), fields[i + 1]
            old_mode, new_mode, old_oid, new_oid, _ = meta.lstrip(":").split(" ")
            found[path] = (_entry(old_mode, old_oid), _entry(new_mode, new_oid))
        return found

    def changed(self, before: str, after: str) -> list[bytes]:
        """The paths that differ between two trees, sorted."""
        return sorted(self.diff(before, after))

    # -- taking steps back ------------------------------------------------------------------
    def plan(self, steps: Sequence[Step], current: Snapshot | None = None) -> Plan:
        """What taking back ``steps`` (newest first) would do, from the files as they are now.

        Each path a step changed goes back to its ``before`` state; a path whose content (as
        the newer steps leave it) is not what that step left is a conflict: someone changed it
        after the step."""
        current = current or self.snapshot()
        plan = Plan(current)
        now: dict[bytes, Entry | None] = {}
        start: dict[bytes, Entry | None] = {}
        conflicts: set[bytes] = set()
        for s in steps:
            made = self.diff(s.before, s.after)
            since = self.diff(s.after, current.tree)
            for p, (before, after) in made.items():
                if p in now:
                    cur = now[p]
                else:
                    cur = since[p][1] if p in since else after
                    start[p] = cur
                if cur != after:
                    conflicts.add(p)
                now[p] = before
        plan.target = {p: e for p, e in now.items() if start[p] != e}
        plan.conflicts = sorted(conflicts & set(plan.target))
        return plan

    def apply(self, plan: Plan, *, overwrite: bool = False) -> Restored:
        """Carry out ``plan``. Conflicting paths are left as they are unless ``overwrite``."""
        out = Restored()
        todo = dict(plan.target)
        if not overwrite:
            for p in plan.conflicts:
                todo.pop(p, None)
                out.kept.append(p)
        blobs = self._blobs({e.oid for e in todo.values() if e is not None})
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            # removals first (deepest first): a file may give way to a folder and back
            for p in sorted((p for p, e in todo.items() if e is None), key=_depth, reverse=True):
                self._one(root_fd, p, None, b"", out)
            for p in sorted((p for p, e in todo.items() if e is not None), key=_depth):
                e = todo[p]
                assert e is not None
                self._one(root_fd, p, e, blobs.get(e.oid, b""), out)
            caches = Restored()  # bytecode: the interpreter writes it again
            for p in plan.bytecode:
                self._one(root_fd, p, None, b"", caches)
            out.bytecode, out.refused = caches.removed, out.refused + caches.refused
        finally:
            os.close(root_fd)
        return out

    def contents(self, oids: set[str]) -> dict[str, bytes]:
        """The bytes of the blobs ``oids`` (a file as a tree holds it)."""
        return self._blobs(oids)

    def read_now(self, path: bytes) -> bytes | None:
        """``path``'s bytes in the project now: a regular file of at most ``max_file_bytes``,
        reached through no symlink (the last part neither); None otherwise."""
        root_fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            return cfiles.read_small(root_fd, path.split(b"/"), self.limits.max_file_bytes)
        finally:
            os.close(root_fd)

    def _blobs(self, oids: set[str]) -> dict[str, bytes]:
        if not oids:
            return {}
        with self._locked():
            raw = self._git("cat-file", "--batch", stdin="".join(o + "\n" for o in oids).encode())
        out: dict[str, bytes] = {}
        pos = 0
        while pos < len(raw):
            nl = raw.index(b"\n", pos)
            head = raw[pos:nl].decode().split()
            if len(head) < 3:  # "<oid> missing"
                raise CheckpointError(f"the checkpoint store lacks object {head[0]}")
            size = int(head[2])
            out[head[0]] = raw[nl + 1 : nl + 1 + size]
            pos = nl + 1 + size + 1
        return out

    def _one(
        self, root_fd: int, path: bytes, entry: Entry | None, data: bytes, out: Restored
    ) -> None:
        mode = entry.mode if entry is not None else None
        try:
            done = cfiles.restore(root_fd, path, mode, data, self.limits.max_file_bytes)
        except cfiles.Refused as r:
            out.refused.append((path, str(r)))
            return
        if done == "written":
            out.written.append(path)
        elif done == "removed":
            out.removed.append(path)


def _under(prefixes: list[bytes]) -> Callable[[bytes], bool]:
    """Whether a path is one of ``prefixes`` or inside one of those ending in ``/``."""
    files = {p for p in prefixes if not p.endswith(b"/")}
    folders = tuple(p for p in prefixes if p.endswith(b"/"))
    return lambda path: path in files or path.startswith(folders)


def _entry(mode: str, oid: str) -> Entry | None:
    return None if set(mode) == {"0"} else Entry(mode, oid)


def _depth(path: bytes) -> tuple[int, bytes]:
    return path.count(b"/"), path


def _z(paths: Iterable[bytes]) -> bytes:
    return b"".join(p + b"\0" for p in paths)


def _write_if_changed(path: Path, text: str) -> None:
    try:
        if path.read_text() == text:
            return
    except OSError:
        pass
    path.write_text(text)
