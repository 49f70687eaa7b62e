"""Helpers shared by the file tools: opening only regular files, reading text exactly, diffs,
and listing the project files a tool may see.

The file tools read and write regular files only. A FIFO, socket or device, and any file of
/proc or /sys, is refused before it is opened (opening a FIFO blocks until a writer comes), and
the check is repeated on the descriptor, opened non-blocking, so a swap in between cannot block
either.

Listing respects .gitignore: inside a git work tree it asks git (``git ls-files -co
--exclude-standard``), elsewhere it walks the tree and honours .gitignore files simply (no
negation). :func:`visible_files` then keeps what a tool may see: regular files (a symlink
counts as its target) whose real path stays inside the project root or the folder searched,
and that no ``permissions.deny`` rule covers. Symlinked folders are not entered.
"""

from __future__ import annotations

import contextlib
import difflib
import fnmatch
import os
import re
import stat
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from ... import host_programs
from . import ToolError

if TYPE_CHECKING:
    from . import ToolContext

__all__ = [
    "glob_regex",
    "list_files",
    "load_text",
    "open_regular",
    "read_text",
    "store_text",
    "special_kind",
    "unified_diff",
    "utf8",
    "visible_files",
    "write_regular",
]

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
)
_PSEUDO_ROOTS = ("/proc", "/sys")
_OPEN = os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC


@cache
def _pseudo_devices() -> frozenset[int]:
    devices = set()
    for where in _PSEUDO_ROOTS:
        try:
            devices.add(os.stat(where).st_dev)
        except OSError:
            pass
    return frozenset(devices)


def special_kind(st: os.stat_result, path: Path | None = None) -> str | None:
    """What a non-regular file is ("a named pipe (FIFO)", …); None for a regular file."""
    for test, kind in _KINDS:
        if test(st.st_mode):
            return kind
    if not stat.S_ISREG(st.st_mode):
        return "a special file"
    if st.st_dev in _pseudo_devices() or (
        path is not None and any(path.is_relative_to(r) for r in _PSEUDO_ROOTS)
    ):
        return "a file of /proc or /sys"
    return None


def _refuse(st: os.stat_result, path: Path, shown: str) -> None:
    kind = special_kind(st, path)
    if kind:
        raise ToolError(
            f"{shown} is {kind}, not a regular file; the file tools read and write only "
            "regular files"
        )


def open_regular(path: Path, shown: str) -> BinaryIO:
    """``path`` opened for reading if it is a regular file; a ToolError otherwise, without
    opening it."""
    try:
        _refuse(os.stat(path), path, shown)
        fd = os.open(path, os.O_RDONLY | _OPEN)
    except FileNotFoundError:
        raise ToolError(f"no such file: {shown}") from None
    except OSError as e:
        raise ToolError(f"cannot read {shown}: {e.strerror}") from None
    try:
        _refuse(os.fstat(fd), path, shown)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


def write_regular(path: Path, data: bytes, shown: str) -> None:
    """Create ``path`` or replace its content, only if it is (or will be) a regular file."""
    before: os.stat_result | None = None
    try:
        if path.exists():
            before = os.stat(path)
            _refuse(before, path, shown)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | _OPEN, 0o666)
    except OSError as e:  # ENXIO: a FIFO put there in between, with no reader
        raise ToolError(f"cannot write {shown}: {e.strerror}") from None
    try:
        _refuse(os.fstat(fd), path, shown)
        os.set_blocking(fd, True)
        os.ftruncate(fd, 0)
        with os.fdopen(fd, "wb", closefd=False) as fh:
            fh.write(data)
        if before is not None:
            _new_second(fd, before)
    finally:
        os.close(fd)


def _new_second(fd: int, before: os.stat_result) -> None:
    """A file rewritten to the same size within the second it was last written keeps its
    whole-second mtime, and Python's cached bytecode (``__pycache__``, keyed by the source's
    size and mtime in seconds) still looks current: the next test run imported the old code.
    Such a file's mtime moves on to the next second."""
    after = os.fstat(fd)
    if after.st_size == before.st_size and int(after.st_mtime) == int(before.st_mtime):
        with contextlib.suppress(OSError):
            os.utime(fd, ns=(after.st_atime_ns, (int(before.st_mtime) + 1) * 1_000_000_000))


def utf8(text: str, what: str) -> bytes:
    """``text`` encoded to write; a model's JSON can carry lone surrogates, which are no text."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        code = ord(e.object[e.start])
        raise ToolError(
            f"{what} is not valid text: it has a lone surrogate (U+{code:04X}) at character "
            f"{e.start}"
        ) from None


LISTED = 40  # entries a "this is a directory" error names


def directory_error(ctx: ToolContext, tool: str, path: Path) -> ToolError:
    """A path that is a directory, where a file was meant: say so and name what is in it, so
    a model that guessed a folder (small ones give the project root) can pick a file. Hidden
    entries and ones ``permissions.deny`` covers are left out."""
    shown = ctx.show(path)
    inside = _entries(ctx, tool, path)
    if not inside:
        return ToolError(f"{shown} is a directory, not a file")
    return ToolError(f"{shown} is a directory, not a file; in it: {inside}")


def missing_error(ctx: ToolContext, tool: str, path: Path) -> ToolError:
    """A file that does not exist: say so and name what its folder holds (the nearest folder
    that exists, up to the project root), so a model that invented a name can pick a real one."""
    shown = ctx.show(path)
    folder = path.parent
    root = ctx.root.resolve()
    while not folder.is_dir() and folder != root and folder.parent != folder:
        folder = folder.parent
    inside = _entries(ctx, tool, folder) if folder.is_dir() else ""
    if not inside:
        return ToolError(f"no such file: {shown}")
    return ToolError(f"no such file: {shown}; in {ctx.show(folder)}: {inside}")


def _entries(ctx: ToolContext, tool: str, folder: Path) -> str:
    """Up to ``LISTED`` entries of ``folder`` as the model would give them ("" if none, or
    when ``folder`` is outside the project: an error never lists the rest of the machine)."""
    try:
        if not folder.resolve().is_relative_to(ctx.root.resolve()):
            return ""
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return ""
    names = [
        e.name + ("/" if e.is_dir(follow_symlinks=False) else "")
        for e in entries
        if not e.name.startswith(".") and not ctx.denied(tool, Path(e.path))
    ]
    shown = ctx.show(folder)
    more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    return ", ".join(n if shown == "." else f"{shown}/{n}" for n in names[:LISTED]) + more


def read_text(path: Path, shown: str, limit: int | None = None) -> str:
    """The file's text with its line endings untouched; a clear error if it is not text.
    ``limit``: the most bytes read — a bigger file is an error, and no more than that is read
    of it, even one that grows meanwhile."""
    if path.is_dir():
        raise ToolError(f"{shown} is a directory")
    with open_regular(path, shown) as fh:
        data = fh.read() if limit is None else fh.read(limit + 1)
        if limit is not None and len(data) > limit:
            size = max(os.fstat(fh.fileno()).st_size, len(data))
            raise ToolError(f"{shown} is {size:,} bytes, over the limit of {limit:,}")
    if b"\x00" in data[:8192]:
        raise ToolError(f"{shown} is a binary file; it cannot be edited as text")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolError(f"{shown} is not UTF-8 text; it cannot be edited as text") from None


def _regular_if_there(path: Path, shown: str) -> None:
    try:
        _refuse(os.stat(path), path, shown)
    except FileNotFoundError:
        pass


async def load_text(ctx: ToolContext, path: Path, shown: str) -> str:
    """The text of the file ``path`` for a tool to change: the editor's (its buffer, unsaved
    edits included) when the editor reads for the tools (``_editor.py``), else the disk's
    (:func:`read_text`). Either way only a regular file is read."""
    editor = ctx.editor
    if editor is None or not editor.reads:
        return read_text(path, shown)
    if path.is_dir():
        raise ToolError(f"{shown} is a directory")
    if not path.exists():
        raise ToolError(f"no such file: {shown}")
    _regular_if_there(path, shown)
    return await editor.read_text(path)


async def store_text(ctx: ToolContext, path: Path, text: str, shown: str) -> None:
    """Make ``path``'s content ``text``: through the editor when it writes for the tools (it
    shows the change for review), else :func:`write_regular`. Only a regular file (or a new
    one) is written; ``text`` must be valid UTF-8 (:func:`utf8`)."""
    data = utf8(text, "content")
    editor = ctx.editor
    if editor is None or not editor.writes:
        write_regular(path, data, shown)
        return
    _regular_if_there(path, shown)
    await editor.write_text(path, text)


def unified_diff(old: str, new: str, shown: str, *, created: bool = False) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True),
        new.splitlines(keepends=True),
        fromfile="/dev/null" if created else f"a/{shown}",
        tofile=f"b/{shown}",
        n=3,
    )
    out = []
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A glob as a regex over posix paths: ``*`` and ``?`` stay inside one segment, ``**``
    spans any number of segments, ``[…]`` is a character class."""
    i, out = 0, []
    while i < len(pattern):
        c = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif c == "*":
            out.append("[^/]*")
            i += 1
        elif c == "?":
            out.append("[^/]")
            i += 1
        elif c == "[" and (j := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1 : j]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body}]")
            i = j + 1
        else:
            out.append(re.escape(c))
            i += 1
    return re.compile("".join(out) + r"\Z")


def list_files(base: Path) -> list[str]:
    """Files under ``base`` (posix paths relative to it), .gitignore respected, .git skipped.
    A name that is not UTF-8 carries its bytes as lone surrogates (``os.fsdecode``)."""
    listed = _git_files(base)
    return listed if listed is not None else _walk(base)


def visible_files(
    base: Path, root: Path, denied: Callable[[Path], bool] | None = None
) -> list[str]:
    """The part of :func:`list_files` a file tool may show: regular files whose real path is
    inside ``root`` or ``base`` and that ``denied`` does not refuse (it is given the path as
    listed, and follows links itself). ``base`` and ``root`` are resolved paths."""
    out: list[str] = []
    dirs: dict[str, Path | None] = {}
    for rel in list_files(base):
        folder, _, name = rel.rpartition("/")
        if folder not in dirs:  # git lists files from its index: a folder may be a link now
            real = (base / folder).resolve() if folder else base
            dirs[folder] = real if _within(real, root, base) else None
        where = dirs[folder]
        if where is None:
            continue
        path = where / name
        try:
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                if not _within(path.resolve(strict=True), root, base):
                    continue
                st = os.stat(path)
        except (OSError, RuntimeError):  # gone, dangling, a loop
            continue
        if special_kind(st) is None and not (denied and denied(base / rel)):
            out.append(rel)
    return out


def _within(path: Path, root: Path, base: Path) -> bool:
    return path.is_relative_to(root) or path.is_relative_to(base)


def _git_files(base: Path) -> list[str] | None:
    listed = host_programs.project_git(
        ["ls-files", "-co", "--exclude-standard", "-z"], base, timeout=30
    )
    return None if listed is None else sorted(os.fsdecode(n) for n in listed.split(b"\0") if n)


class _Ignore:
    """.gitignore rules in force in one directory: (dir of the file, pattern, anchored, dir_only)."""

    def __init__(self, rules: list[tuple[Path, str, bool, bool]]) -> None:
        self.rules = rules

    def extended(self, directory: Path) -> _Ignore:
        gi = directory / ".gitignore"
        if not gi.is_file():
            return self
        new = list(self.rules)
        for raw in gi.read_text(encoding="utf-8", errors="replace").splitlines():
            line = raw.strip()
            if not line or line.startswith(("#", "!")):
                continue
            dir_only = line.endswith("/")
            line = line.rstrip("/")
            anchored = "/" in line
            new.append((directory, line.lstrip("/"), anchored, dir_only))
        return _Ignore(new)

    def ignored(self, path: Path, is_dir: bool) -> bool:
        for where, pat, anchored, dir_only in self.rules:
            if dir_only and not is_dir:
                continue
            if anchored:
                try:
                    rel = path.relative_to(where).as_posix()
                except ValueError:
                    continue
                if glob_regex(pat).match(rel):
                    return True
            elif fnmatch.fnmatchcase(path.name, pat):
                return True
        return False


def _walk(base: Path) -> list[str]:
    out: list[str] = []
    ignores: dict[Path, _Ignore] = {}
    for dirpath, dirnames, filenames in os.walk(base):
        d = Path(dirpath)
        ign = ignores.get(d.parent, _Ignore([])) if d != base else _Ignore([])
        ign = ign.extended(d)
        ignores[d] = ign
        dirnames[:] = sorted(
            n for n in dirnames if n != ".git" and not ign.ignored(d / n, is_dir=True)
        )
        for name in filenames:
            p = d / name
            if not ign.ignored(p, is_dir=False):
                out.append(p.relative_to(base).as_posix())
    return sorted(out)
