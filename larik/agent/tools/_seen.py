"""No blind overwrite: which files the agent has read, and whether they changed since.

``edit_file``, and ``write_file`` over an existing file, need the file to have been read in this
session (by ``read_file``, or written by the agent itself) and unchanged on disk since — the rule
Claude Code enforces. Otherwise the call is a tool error telling the model to read the file
first: a model that never looked cannot know what it is replacing, and one whose view is stale
(a command, the user or a formatter changed the file) would undo someone's work. A refused
edit_file's error shows the file as it is now, which then counts as read (small models repeat
the refused edit rather than read); a refused write_file does not.

"Unchanged" is the file's ``(mtime_ns, size, inode)``; when those moved, the content's SHA-256
(kept for files up to ``HASH_LIMIT``) decides, so a touch or a same-content rewrite is no change.
The agent gives every ToolContext its own :class:`SeenFiles` (a subagent starts with none: it has
not seen anything); a context without one (tools called directly) does not check.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ...words import count
from . import ToolError

if TYPE_CHECKING:
    from . import ToolContext

__all__ = ["HASH_LIMIT", "SeenFiles", "remember", "require_read", "shrink_note"]

HASH_LIMIT = 8 << 20  # bytes: larger files are compared by their stat alone
SHRINK_MIN_LINES = 8  # a write that keeps under a quarter of at least this many lines warns


@dataclass(frozen=True)
class _Stamp:
    mtime_ns: int
    size: int
    inode: int
    digest: str  # "" when the file was too large to hash


@dataclass
class SeenFiles:
    stamps: dict[Path, _Stamp] = field(default_factory=dict)

    def record(self, path: Path) -> None:
        """The agent now knows ``path`` as it is on disk (it read or wrote it)."""
        stamp = _stamp(path)
        if stamp is not None:
            self.stamps[path] = stamp

    def problem(self, path: Path, shown: str) -> str:
        """Why ``path`` may not be overwritten now ("" when it may)."""
        seen = self.stamps.get(path)
        if seen is None:
            return (
                f"{shown} has not been read in this session: read it with read_file first "
                "(editing or replacing an existing file needs its current content)"
            )
        try:
            st = path.stat()
        except OSError:
            return ""  # gone: the tool itself says what it finds
        if (st.st_mtime_ns, st.st_size, st.st_ino) == (seen.mtime_ns, seen.size, seen.inode):
            return ""
        now = _stamp(path)
        if now is not None and seen.digest and now.digest == seen.digest:
            self.stamps[path] = now  # touched, same content
            return ""
        return (
            f"{shown} changed on disk since you last read it (a command, the user or another "
            "program changed it): read it again with read_file before changing it"
        )


def require_read(
    ctx: ToolContext, path: Path, shown: str, current: Callable[[], str] | None = None
) -> None:
    """Raise a ToolError unless the agent read ``path`` and it is unchanged since. With
    ``current`` (edit_file: read_file's first page, "" when it cannot show the file) the error
    carries the file's current content,
    which then counts as read: the edit is still refused, but the next try can copy old_string
    from what the model was shown instead of repeating the refused call (small models do, until
    they are stopped as stuck). write_file never gets this: a blind whole-file write repeated
    must stay refused."""
    seen = getattr(ctx, "seen", None)
    if seen is not None and (why := seen.problem(path, shown)):
        page = current() if current is not None else ""
        if page:
            seen.record(path)
            head = why.split(": read it", 1)[0]
            why = (
                f"{head}, so nothing was changed. Its current content is below and now counts "
                "as read: make the change again based on it (copy old_string exactly from "
                f"it).\n{page}"
            )
        raise ToolError(why)


def remember(ctx: ToolContext, path: Path) -> None:
    seen = getattr(ctx, "seen", None)
    if seen is not None:
        seen.record(path)


def _stamp(path: Path) -> _Stamp | None:
    try:
        st = path.stat()
        digest = ""
        if st.st_size <= HASH_LIMIT and path.is_file():
            with open(path, "rb", buffering=0) as fh:
                digest = hashlib.file_digest(fh, "sha256").hexdigest()
    except OSError:
        return None
    return _Stamp(st.st_mtime_ns, st.st_size, st.st_ino, digest)


def shrink_note(old: str, new: str, shown: str) -> str:
    """A line for write_file's result when it cut a file to a small fraction of its size."""
    before = len([ln for ln in old.splitlines() if ln.strip()])
    after = len([ln for ln in new.splitlines() if ln.strip()])
    if before < SHRINK_MIN_LINES or after * 4 > before:
        return ""
    return (
        f"\nwarning: {shown} went from {before} to {count(after, 'non-blank line')}: the rest of its "
        "old content is gone. If you meant to change only part of it, restore it and use "
        "edit_file."
    )
