"""Safe file access for checkpoints: every folder on the way opened with ``O_NOFOLLOW``
relative to the one before, so a folder that has become a symlink (say, to outside the project)
is refused, never written or read through; ``.git`` and ``..`` path components refused.
"""

from __future__ import annotations

import errno
import os
import stat
import time

__all__ = [
    "Refused",
    "clear_folder",
    "open_dirs",
    "plain_dir",
    "prune",
    "put_file",
    "read_small",
    "restore",
    "safe_parts",
    "show",
]


def show(path: bytes) -> str:
    """A path as one printable line: bytes that are not UTF-8 as ``\\xNN``, control
    characters (a newline in a name) as escapes."""
    text = path.decode("utf-8", "backslashreplace")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        text = "".join(c if 32 <= ord(c) != 127 else repr(c)[1:-1] for c in text)
    return text


class Refused(Exception):
    pass


MAX_DEPTH = 64  # folders inside a folder to be cleared that are looked into (no deeper)


def open_dirs(root_fd: int, parts: list[bytes], *, create: bool) -> int:
    """A descriptor of the folder ``parts`` below the root, never through a symlink."""
    fd = os.dup(root_fd)
    shown: list[bytes] = []
    try:
        for name in parts:
            shown.append(name)
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                nfd = os.open(name, flags, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                os.mkdir(name, 0o777, dir_fd=fd)
                nfd = os.open(name, flags, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a folder"
                    raise Refused(f"{show(b'/'.join(shown))} is {what} now") from None
                raise
            os.close(fd)
            fd = nfd
        return fd
    except BaseException:
        os.close(fd)
        raise


def prune(root_fd: int, parts: list[bytes]) -> None:
    """Remove the folders of a removed file that it left empty (never the root)."""
    while parts:
        try:
            parent = open_dirs(root_fd, parts[:-1], create=False)
        except (OSError, Refused):
            return
        try:
            os.rmdir(parts[-1], dir_fd=parent)
        except OSError:
            return  # not empty, or gone
        finally:
            os.close(parent)
        parts = parts[:-1]


def plain_dir(base: bytes, d: bytes, seen: dict[bytes, bool]) -> bool:
    """Whether folder ``d`` (relative) is a real folder, reached through no symlink."""
    if d not in seen:
        parent = d.rpartition(b"/")[0]
        try:
            st = os.lstat(os.path.join(base, d))
            ok = stat.S_ISDIR(st.st_mode) and plain_dir(base, parent, seen)
        except OSError:
            ok = False
        seen[d] = ok
    return seen[d]


def read_small(root_fd: int, parts: list[bytes], limit: int) -> bytes | None:
    """A regular file's bytes, reached without following a symlink (as git reads
    ``.gitignore``); None if it is not one, or is over ``limit`` bytes."""
    if not safe_parts(parts):
        return None
    try:
        dir_fd = open_dirs(root_fd, parts[:-1], create=False)
    except (OSError, Refused):
        return None
    try:
        fd = os.open(
            parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd
        )
    except OSError:
        return None
    finally:
        os.close(dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        return os.read(fd, limit + 1)[:limit]
    except OSError:
        return None
    finally:
        os.close(fd)


def safe_parts(parts: list[bytes]) -> bool:
    return all(p and p not in (b".", b"..") and p.lower() != b".git" for p in parts)


def restore(root_fd: int, path: bytes, mode: str | None, data: bytes, max_bytes: int) -> str:
    """Put ``path`` back as a file of git mode ``mode`` holding ``data``, or remove it (``mode``
    None): "written", "removed", or "" (nothing was there to remove). Raises :class:`Refused`
    saying why it could not (an unsafe path, a folder that became a symlink, a file now over
    ``max_bytes`` that no checkpoint holds, a full disk): then nothing of ``path`` changed."""
    parts = path.split(b"/")
    if not safe_parts(parts):
        raise Refused("not a path inside the project")
    try:
        dir_fd = open_dirs(root_fd, parts[:-1], create=mode is not None)
    except FileNotFoundError:
        if mode is None:
            return ""  # removing a file whose folder is gone already: nothing to do
        raise Refused("its folder could not be made") from None
    except OSError as e:
        raise Refused(e.strerror or str(e)) from None
    try:
        return _put(dir_fd, parts[-1], mode, data, path, max_bytes)
    except OSError as e:
        raise Refused(e.strerror or str(e)) from None
    finally:
        os.close(dir_fd)
        if mode is None:
            prune(root_fd, parts[:-1])


def _put(
    dir_fd: int, name: bytes, mode: str | None, data: bytes, path: bytes, max_bytes: int
) -> str:
    try:
        st: os.stat_result | None = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):  # a folder where a file was
        clear_folder(dir_fd, name, path)
        st = None
    if st is not None and stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:
        raise Refused(f"over {max_bytes // (1024 * 1024)} MiB: not checkpointed")
    if mode is None:
        if st is None:
            return ""
        os.unlink(name, dir_fd=dir_fd)
        return "removed"
    put_file(dir_fd, name, mode, data, st)  # a FIFO or a socket in its place is replaced
    return "written"


def put_file(dir_fd: int, name: bytes, mode: str, data: bytes, now: os.stat_result | None) -> None:
    """Write ``name`` (a file of git mode ``mode``: 100644, 100755, or 120000 a symlink to
    ``data``) under a temporary name in its folder and rename it over what is there (a symlink
    in its place is replaced, never followed). ``now``: what is there (its permissions are
    kept). On any failure (a full disk) the temporary file is removed and nothing is changed."""
    tmp = b".larik-restore-%d-%d" % (os.getpid(), time.monotonic_ns())
    if mode == "120000":
        os.symlink(data, tmp, dir_fd=dir_fd)
    elif mode in ("100644", "100755"):
        perm = 0o777 if mode == "100755" else 0o666
        fd = os.open(
            tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, perm,
            dir_fd=dir_fd,
        )  # fmt: skip
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
                if now is not None and stat.S_ISREG(now.st_mode):  # keep the user's permissions
                    kept = stat.S_IMODE(now.st_mode)
                    kept = kept | ((kept & 0o444) >> 2) if mode == "100755" else kept & ~0o111
                    os.fchmod(fd, kept)
            finally:
                os.close(fd)
        except BaseException:
            _unlink_quietly(dir_fd, tmp)
            raise
    else:
        raise Refused(f"entry of mode {mode} is not restored")
    try:
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        _unlink_quietly(dir_fd, tmp)
        raise


def _unlink_quietly(dir_fd: int, name: bytes) -> None:
    try:
        os.unlink(name, dir_fd=dir_fd)
    except OSError:
        pass


def clear_folder(dir_fd: int, name: bytes, shown: bytes) -> None:
    """Remove folder ``name`` where a file is to be restored, when it holds nothing but empty
    folders (which no checkpoint records, so nothing is lost). Anything else in it (a file
    the checkpoints leave out, a FIFO) is not deleted unasked: :class:`Refused` names it."""
    held = _held(dir_fd, name, shown, MAX_DEPTH)
    if held is not None:
        raise Refused(
            f"it is a folder now, holding {show(held)}, which no checkpoint records: "
            "move the folder away and undo again"
        )
    _remove_empty(dir_fd, name)


def _held(dir_fd: int, name: bytes, shown: bytes, depth: int) -> bytes | None:
    """The first thing in folder ``name`` that is not an empty folder (or a folder deeper than
    ``depth``); None if none."""
    if depth <= 0:
        return shown
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        for entry in os.scandir(fd):
            inner = shown + b"/" + os.fsencode(entry.name)
            if not entry.is_dir(follow_symlinks=False):
                return inner
            found = _held(fd, os.fsencode(entry.name), inner, depth - 1)
            if found is not None:
                return found
        return None
    finally:
        os.close(fd)


def _remove_empty(dir_fd: int, name: bytes) -> None:
    fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    try:
        for entry in os.scandir(fd):
            _remove_empty(fd, os.fsencode(entry.name))
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=dir_fd)
