"""Command files on disk: where a project keeps them, how their folders are walked and how one is
read — bounded, never a FIFO or a device, never through a link leading out of the project.

Two readers share this, so that they can never disagree about which files hold shell lines:
the custom commands (``larik.custom_commands``: discovery, running one) and the trust question
(``larik.trust_runs.shell_command_files``: which of a project's command files have ``!`…```
lines, and their SHA-256, which trusting the project covers). A leaf: the standard library, the front
matter parser and how a path is shown.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from . import frontmatter
from .paths import shown as shown_text
from .words import count

__all__ = [
    "MAX_BYTES",
    "MAX_DEPTH",
    "MAX_FILES",
    "NAME_PART",
    "PROJECT_FOLDERS",
    "SHELL_LINE",
    "Refused",
    "read_bounded",
    "read_command",
    "shown",
    "walk",
]

PROJECT_FOLDERS = (".larik/commands", ".claude/commands")
MAX_BYTES = 128 * 1024  # a command file larger than this is refused unread
MAX_DEPTH = 3  # namespace levels
MAX_FILES = 1000  # files looked at in one folder tree
NAME_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
SHELL_LINE = re.compile(r"!`([^`\n]+)`")


def walk(
    folder: Path, scope: str, project: Path | None, problems: list[str]
) -> list[tuple[Path, list[str]]]:
    """The ``.md`` files under ``folder`` and their name parts. A project's links that lead
    outside the project are refused (a notice); folders nest at most :data:`MAX_DEPTH` deep."""
    out: list[tuple[Path, list[str]]] = []
    stack: list[tuple[Path, list[str]]] = [(folder, [])]
    looked = 0
    while stack:
        current, prefix = stack.pop(0)
        try:
            entries = sorted(os.scandir(current), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            looked += 1
            if looked > MAX_FILES:
                problems.append(
                    f"commands in {shown(folder)}: more than {count(MAX_FILES, 'file')}; the rest skipped"
                )
                return out
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            try:
                is_dir = entry.is_dir()
                if not is_dir and not entry.name.endswith(".md"):
                    continue
                real = path.resolve()
            except (OSError, RuntimeError):
                continue
            if project is not None and not real.is_relative_to(project):
                problems.append(
                    f"command {shown(path)}: leads outside the project (a symlink); not loaded"
                )
                continue
            if is_dir:
                if len(prefix) + 1 < MAX_DEPTH and entry.name not in ("node_modules",):
                    stack.append((path, [*prefix, entry.name]))
                continue
            out.append((path, [*prefix, entry.name[: -len(".md")]]))
    return out


def read_command(
    path: Path, parts: list[str], problems: list[str]
) -> tuple[bytes, frontmatter.Document] | None:
    """A command file's bytes and its front matter and body; None (the reason in
    ``problems``) when it is not loaded: not a command name, not readable, not UTF-8."""
    where = shown(path)
    if not all(NAME_PART.match(p) for p in parts):
        problems.append(
            f"command {where}: not a command name (letters, digits, - _ . only); not loaded"
        )
        return None
    try:
        data = read_bounded(path)
    except Refused as e:
        problems.append(f"command {where}: {e}; not loaded")
        return None
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError:
        problems.append(f"command {where}: not UTF-8 text; not loaded")
        return None
    doc = frontmatter.parse(source)
    if doc.problem:
        problems.append(f"command {where}: {doc.problem}")
    return data, doc


class Refused(Exception):
    """A file that is not read (a FIFO, a device, too large, binary, unreadable): why."""


def read_bounded(path: Path, limit: int = MAX_BYTES, what: str = "file") -> bytes:
    """A regular file's bytes (a FIFO or device is never opened), at most ``limit``."""
    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"not a regular {what}")
        if st.st_size > limit:
            raise Refused(f"larger than {limit // 1024} KB")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise Refused(f"not a regular {what}")
            data = fh.read(limit + 1)
    except OSError as e:
        raise Refused(f"cannot read it ({e.strerror or e})") from None
    if len(data) > limit:
        raise Refused(f"larger than {limit // 1024} KB")
    if b"\0" in data[:8192]:
        raise Refused("a binary file")
    return data


def shown(path: Path) -> str:
    return shown_text(str(path))
