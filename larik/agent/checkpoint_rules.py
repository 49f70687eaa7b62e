"""What a checkpoint leaves out, decided before the turn: the ignore rules of a snapshot, and the
folders left when a turn makes more new files than a checkpoint records.

**Why the rules are fixed before the turn.** Git reads ``.gitignore`` files from the work tree,
so a snapshot taken after a turn would obey the ignore files *the turn* wrote: a turn that puts
``*`` into a ``.gitignore`` would hide what it planted (a ``sitecustomize.py``), and one that
removes ``build/`` from it would make undo delete a ``build/`` that was there before. So a
snapshot taken before a turn writes the rules it used to one *rules file* in the checkpoint
store, and the snapshot after the turn obeys that file and never the work tree's ignore files.

**The rules file** is one exclude file, read with ``git ls-files --exclude-from`` (no
``--exclude-standard``: no ``.gitignore`` of the work tree, no ``info/exclude``, no
``core.excludesFile`` is read then): Larik's own exclusions first, then each ``.gitignore``
git reads (the root's, then deeper ones), its patterns rewritten to be relative to the top
(``foo`` in ``a/.gitignore`` becomes ``/a/**/foo``, ``/x`` or ``x/y`` becomes ``/a/x``,
``/a/x/y``), in that order, so that a deeper file's patterns still win, as in git. Then the
folders a snapshot left out (below) and the nested repositories it saw, as patterns that
exclude them: the snapshot after the turn leaves them out too, whatever their count is then.
Its ``#larik-left N`` comments name them for the undo's report. A mistake in rewriting a
pattern changes only what is recorded, never makes the two snapshots of one turn disagree:
both read the same file.

**Too many new files.** A snapshot stores at most ``Limits.max_files`` new files. Past that,
the biggest folders are left out (:func:`choose_left`): the top-level folders, largest first,
until the rest fits; where one folder alone is enough, the same one level inside it. Files
already recorded are always updated, so a turn that made 60,000 files in ``build/`` can still
be undone everywhere else, and the undo names what it left.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

__all__ = [
    "BIG_MARK",
    "LEFT_MARK",
    "choose_left",
    "escape",
    "flatten",
    "big_of",
    "left_of",
    "rules_id",
    "with_left",
]

LEFT_MARK = b"#larik-left "  # a comment naming a folder left out and its number of files
BIG_MARK = b"#larik-big "  # a comment naming a file over the size limit then
MAX_LEFT_GROUPS = 10  # folders left inside one folder before leaving that folder whole


def rules_id(text: bytes) -> str:
    """The id a rules file is stored under: its content's SHA-256 (hex)."""
    return hashlib.sha256(text).hexdigest()


def escape(path: bytes) -> bytes:
    """``path`` as a gitignore pattern that matches it literally: glob characters and spaces
    escaped; a newline or carriage return (which a pattern cannot hold) as ``?``, which
    matches it and more (leaving out more is safe; see the module docstring)."""
    out = bytearray()
    for c in path:
        ch = bytes([c])
        if ch in b"\n\r":
            out += b"?"
        elif ch in b"*?[]\\ !#":
            out += b"\\" + ch
        else:
            out += ch
    return bytes(out)


def _trim(line: bytes) -> bytes:
    """Git's ``trim_trailing_spaces``: trailing spaces go unless escaped with a backslash."""
    last_space = -1
    i = 0
    while i < len(line):
        c = line[i : i + 1]
        if c == b" ":
            if last_space < 0:
                last_space = i
        elif c == b"\\":
            i += 1
            if i >= len(line):
                return line
            last_space = -1
        else:
            last_space = -1
        i += 1
    return line[:last_space] if last_space >= 0 else line


def _patterns(folder: bytes, text: bytes) -> list[bytes]:
    """The patterns of ``folder``'s ``.gitignore`` (``text``), relative to the top."""
    if text.startswith(b"\xef\xbb\xbf"):
        text = text[3:]
    prefix = b"/" + escape(folder) + b"/" if folder else b""
    out = []
    for line in text.split(b"\n"):
        line = _trim(line[:-1] if line.endswith(b"\r") else line)
        if not line or line.startswith(b"#"):
            continue
        if not prefix:
            out.append(line)
            continue
        neg = line.startswith(b"!")
        body = line[1:] if neg else line
        if not body.strip(b"/"):
            continue
        if b"/" in body.rstrip(b"/"):  # anchored to its folder
            moved = prefix + (body[1:] if body.startswith(b"/") else body)
        else:  # a name: at any depth below its folder
            moved = prefix + b"**/" + body
        out.append((b"!" if neg else b"") + moved)
    return out


def flatten(head: str, files: Iterable[tuple[bytes, bytes]]) -> bytes:
    """One exclude file: ``head`` (Larik's own exclusions), then each ``(folder, text)`` of a
    ``.gitignore`` (``folder`` relative, ``b""`` for the top), shallow ones first."""
    lines = [head.encode().rstrip(b"\n")]
    for folder, text in sorted(files, key=lambda f: (f[0].count(b"/") + bool(f[0]), f[0])):
        lines.append(b"# from " + (folder + b"/" if folder else b"") + b".gitignore")
        lines.extend(_patterns(folder, text))
    return b"\n".join(lines) + b"\n"


def with_left(
    text: bytes,
    left: Iterable[tuple[bytes, int]],
    repos: Iterable[bytes],
    big: Iterable[bytes] = (),
) -> bytes:
    """``text`` followed by patterns excluding the folders (or files) left out and the nested
    repositories seen (each ``b"name/"``), and comments naming the files over the size limit
    (not excluded: the snapshot after the turn must still see one the turn shrank)."""
    extra = []
    for path, n in left:
        extra += [LEFT_MARK + str(n).encode() + b" " + escape(path), b"/" + escape(path)]
    for repo in repos:
        extra.append(b"/" + escape(repo))
    extra += [BIG_MARK + escape(path) for path in big]
    return text + b"".join(line + b"\n" for line in extra)


def big_of(text: bytes) -> set[bytes]:
    """The files a rules file says were over the size limit when it was written."""
    return {
        _unescape(line[len(BIG_MARK) :]) for line in text.split(b"\n") if line.startswith(BIG_MARK)
    }


def left_of(text: bytes) -> list[tuple[bytes, int]]:
    """The folders a rules file says were left out, with their number of files then."""
    out = []
    for line in text.split(b"\n"):
        if line.startswith(LEFT_MARK):
            n, _, path = line[len(LEFT_MARK) :].partition(b" ")
            out.append((_unescape(path), int(n) if n.isdigit() else 0))
    return out


def _unescape(pattern: bytes) -> bytes:
    out = bytearray()
    i = 0
    while i < len(pattern):
        if pattern[i : i + 1] == b"\\" and i + 1 < len(pattern):
            i += 1
        out += pattern[i : i + 1]
        i += 1
    return bytes(out)


def _groups(paths: list[bytes], depth: int) -> dict[bytes, list[bytes]]:
    """``paths`` by their first ``depth + 1`` components (``b"a/b/"`` a folder, else a file)."""
    out: dict[bytes, list[bytes]] = {}
    for p in paths:
        cut = -1
        for _ in range(depth + 1):
            cut = p.find(b"/", cut + 1)
            if cut < 0:
                break
        out.setdefault(p[: cut + 1] if cut >= 0 else p, []).append(p)
    return out


def choose_left(paths: list[bytes], room: int, depth: int = 0) -> list[tuple[bytes, int]] | None:
    """The folders (or files) to leave out so that at most ``room`` of the new files ``paths``
    are stored, each with its number of files, largest first. Inside a folder (``depth`` > 0)
    only whole subfolders are left, at most :data:`MAX_LEFT_GROUPS` of them; None when that
    is not enough: the caller leaves the folder whole."""
    need = len(paths) - room
    if need <= 0:
        return []
    groups = _groups(paths, depth)
    order = sorted(groups, key=lambda k: (-len(groups[k]), k))
    if depth:
        order = [k for k in order if k.endswith(b"/")]
    if order and order[0].endswith(b"/") and len(groups[order[0]]) > need:
        big = order[0]  # leaving part of the biggest folder is enough: look inside it
        inner = choose_left(groups[big], len(groups[big]) - need, depth + 1)
        if inner is not None:
            return inner
    left = []
    for k in order:
        if need <= 0:
            break
        left.append((k, len(groups[k])))
        need -= len(groups[k])
    if depth and (need > 0 or len(left) > MAX_LEFT_GROUPS):
        return None
    return left
