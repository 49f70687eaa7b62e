"""Where a tool's path points, and whether that is inside the project root.

A path is taken relative to the project root, ``~`` expanded, then resolved: ``..`` collapses
and every existing symlink is followed, so a link inside the project that points outside it
resolves outside it. The permission policy refuses such paths unless an allow rule covers them.

File names that are not UTF-8 (bytes a Latin-1 or Shift-JIS tool wrote) reach Python as lone
surrogates (``os.fsdecode``), which cannot be sent to a model or written to a transcript.
:func:`shown` writes each such byte as ``\\xNN`` (``café.py`` in Latin-1 is ``caf\\xe9.py``),
and :func:`resolve_path` reads that form back, so the model can pass a name it was shown to
read_file. A name that really contains ``\\xNN`` is found first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .llm.encodable import encodable as shown  # the rule of every text Larik sends or writes

__all__ = ["ResolvedPath", "resolve_path", "shown", "wide_root", "wide_root_line"]

_ESCAPED_BYTE = re.compile(r"\\x([89a-fA-F][0-9a-fA-F])")


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    path: Path  # absolute, symlinks followed
    inside: bool  # inside the project root
    rel: str  # posix path relative to the root ("." for the root), or the absolute path

    def __str__(self) -> str:
        return self.rel


def resolve_path(root: Path, raw: str) -> ResolvedPath:
    root = root.resolve()
    p = _absolute(root, raw)
    if "\\x" in raw and not p.exists() and not p.is_symlink():
        escaped = _absolute(root, _ESCAPED_BYTE.sub(lambda m: chr(0xDC00 + int(m[1], 16)), raw))
        if escaped.exists() or escaped.is_symlink():
            p = escaped
    resolved = p.resolve(strict=False)
    try:
        rel = resolved.relative_to(root).as_posix()
        return ResolvedPath(resolved, True, rel or ".")
    except ValueError:
        return ResolvedPath(resolved, False, resolved.as_posix())


def _absolute(root: Path, raw: str) -> Path:
    p = Path(raw).expanduser() if raw else Path(".")
    return p if p.is_absolute() else root / p


def wide_root(root: Path, home: Path | None = None) -> str:
    """What ``root`` is when it is far wider than a project — ``/``, the home folder, or a
    folder holding it — in words ("" for any other folder). Working there, the model reads all
    of it and a sandboxed command may write anywhere under it (the sandbox opens the project
    folder): the TUI asks first, print mode refuses without ``--trust-project``.
    Imports nothing: the TUI asks before its config is loaded."""
    root = root.resolve()
    try:
        home = (home or Path.home()).resolve()
    except (RuntimeError, OSError):  # no home to be found: only / is known to be too wide
        home = None
    if root == Path(root.anchor):
        return "the root of the whole file system"
    if home is not None and root == home:
        return "your home folder"
    if home is not None and root in home.parents:
        return f"a folder holding your home folder ({home})"
    return ""


def wide_root_line(root: Path, what: str) -> str:
    """The one line that says why ``root`` (:func:`wide_root`: ``what``) is no project."""
    return (
        f"{root} is {what}: the model would read all of it, and a command may change any file "
        "under it. Start Larik in a project's folder"
    )
