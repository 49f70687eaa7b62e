"""Python bytecode a turn wrote, which an undo removes though no checkpoint records it.

**Why.** A checkpoint leaves ignored files out, and bytecode always is (``__pycache__/`` is in
``Limits.excluded``; ``*.pyc`` in most ``.gitignore`` files). But bytecode is code that runs:
a turn that writes ``__pycache__/app.cpython-311.pyc`` with a header copying the clean
``app.py``'s mtime and size has it run by the next ``import app``, after an undo and with
``git status`` clean; a ``name.pyc`` beside the sources (or a folder holding ``__init__.pyc``)
is imported where no ``name.py`` is, so a ``pytest.pyc`` in the project's top runs on
``python -m pytest``. Bytecode is a cache: the interpreter writes it again from the source,
so removing what a turn wrote loses nothing.

**How "written during the turn" is told.** The checkpoint before a turn lists the bytecode
files (``*.pyc``, and everything named so in a ``__pycache__`` folder) where its snapshot
looks — the folders its ignore rules do not leave out whole, so a ``.venv/`` is not walked —
each with a *stamp*: device, inode, ctime, mtime and size, and stores the list in the
checkpoint store. A file whose stamp at its path differs later was written, replaced, renamed
or linked there since (each sets the ctime, which no program can set back), or is new there
(one moved in with its folder keeps its ctime, but not its path). The
turn's end names them (``checkpoint_done``'s ``bytecode``); an undo removes every bytecode
file written since the checkpoint of the oldest turn it takes back, also those written after
the turn (by the user's own runs): all are rebuilt on the next import.

What this does not cover is the rest of the ignored paths a turn can write (``.venv/``,
``node_modules/``, build outputs, ``.env``): docs/undo.md, "Limits".
"""

from __future__ import annotations

import os
import stat

__all__ = ["decode", "encode", "listing", "written"]

SUFFIX = b".pyc"
CACHE_FOLDER = b"__pycache__"


Stamp = tuple[int, int, int, int, int]  # device, inode, ctime, mtime (ns), size


def listing(ignored: bytes, root: bytes) -> dict[bytes, Stamp]:
    """The bytecode files among ``ignored`` (``git ls-files -z --others --ignored
    --directory``: ignored files, and ignored folders as ``name/``), each with its stamp;
    the ``__pycache__`` folders among them are looked into, other ignored folders are not."""
    out: dict[bytes, Stamp] = {}
    for item in ignored.split(b"\0"):
        if item.endswith(b"/"):
            if item.rstrip(b"/").rpartition(b"/")[2] == CACHE_FOLDER:
                _cache_folder(root, item, out)
        elif item.endswith(SUFFIX) or item.rpartition(b"/")[2] == CACHE_FOLDER:
            # (a __pycache__ that is not a folder: a symlink to one the turn filled)
            try:
                found = os.lstat(os.path.join(root, item))
            except OSError:
                continue
            if not stat.S_ISDIR(found.st_mode):
                out[item] = _stamp(found)
    return out


def _cache_folder(root: bytes, folder: bytes, out: dict[bytes, Stamp]) -> None:
    """Everything in ``folder`` (a ``__pycache__/``) that is not a folder, stamped."""
    try:
        fd = os.open(os.path.join(root, folder), os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return  # gone, or not a folder now
    try:
        for name in os.listdir(fd):
            try:
                found = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            if not stat.S_ISDIR(found.st_mode):
                out[folder + os.fsencode(name)] = _stamp(found)
    except OSError:
        pass
    finally:
        os.close(fd)


def _stamp(st: os.stat_result) -> Stamp:
    return (st.st_dev, st.st_ino, st.st_ctime_ns, st.st_mtime_ns, st.st_size)


def encode(found: dict[bytes, Stamp]) -> bytes:
    """A listing as stored: ``device.inode.ctime.mtime.size path\\0`` per file (in hex),
    sorted (a path holds no NUL)."""
    return b"".join(b"%x.%x.%x.%x.%x " % found[p] + p + b"\0" for p in sorted(found))


def decode(data: bytes) -> dict[bytes, Stamp]:
    out: dict[bytes, Stamp] = {}
    for item in data.split(b"\0"):
        stamp, sep, path = item.partition(b" ")
        fields = stamp.split(b".")
        if sep and path and len(fields) == 5:
            try:
                a, b, c, d, e = (int(f, 16) for f in fields)
            except ValueError:
                continue
            out[path] = (a, b, c, d, e)
    return out


def written(before: dict[bytes, Stamp], now: dict[bytes, Stamp]) -> list[bytes]:
    """The files of ``now`` that ``before`` does not hold with the same stamp, sorted."""
    return sorted(p for p, s in now.items() if before.get(p) != s)
