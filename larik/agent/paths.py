"""Where a tool's path points, and whether that is inside the project root.

A path is taken relative to the project root, ``~`` expanded, then resolved: ``..`` collapses
and every existing symlink is followed, so a link inside the project that points outside it
resolves outside it. The permission policy refuses such paths unless an allow rule covers them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = ["ResolvedPath", "resolve_path"]


@dataclass(frozen=True, slots=True)
class ResolvedPath:
    path: Path  # absolute, symlinks followed
    inside: bool  # inside the project root
    rel: str  # posix path relative to the root ("." for the root), or the absolute path

    def __str__(self) -> str:
        return self.rel


def resolve_path(root: Path, raw: str) -> ResolvedPath:
    root = root.resolve()
    p = Path(raw).expanduser() if raw else Path(".")
    if not p.is_absolute():
        p = root / p
    resolved = p.resolve(strict=False)
    try:
        rel = resolved.relative_to(root).as_posix()
        return ResolvedPath(resolved, True, rel or ".")
    except ValueError:
        return ResolvedPath(resolved, False, resolved.as_posix())
