"""``@path`` in the prompt: completing the path as it is typed. Attaching the files to the
turn is the session's (``larik/session/attachments.py``: the same for print mode)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["complete_path"]


def complete_path(partial: str, cwd: Path, limit: int = 50) -> list[str]:
    """Paths under ``cwd`` that complete ``partial`` (directories end with ``/``).

    Hidden entries are listed only when ``partial``'s last part starts with a dot.
    """
    base, _, stem = partial.rpartition("/")
    directory = (cwd / base) if base else cwd
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    out: list[str] = []
    for name in names:
        if not name.startswith(stem) or (name.startswith(".") and not stem.startswith(".")):
            continue
        full = f"{base}/{name}" if base else name
        try:
            if (directory / name).is_dir():
                full += "/"
        except OSError:  # cannot tell: offer it as a file
            pass
        out.append(full)
        if len(out) >= limit:
            break
    return out
