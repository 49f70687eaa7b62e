"""Safe file access for checkpoints: every folder on the way opened with ``O_NOFOLLOW``
relative to the one before, so a folder that has become a symlink (say, to outside the project)
is refused, never written or read through; ``.git`` and ``..`` path components refused.
"""

from __future__ import annotations

import errno
import os
import stat

__all__ = ["Refused", "open_dirs", "plain_dir", "prune", "read_small", "safe_parts", "show"]


def show(path: bytes) -> str:
    """A path as one printable line: bytes that are not UTF-8 as ``\\xNN``, control
    characters (a newline in a name) as escapes."""
    text = path.decode("utf-8", "backslashreplace")
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        text = "".join(c if 32 <= ord(c) != 127 else repr(c)[1:-1] for c in text)
    return text


class Refused(Exception):
    pass


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
