"""What the TUI keeps between runs, per user, in the state directory.

The prompt history file: one JSON string per line, the newest last, kept to ``KEEP`` lines.
Reading or writing it never fails the app: an unreadable file is an empty history, a line that
is not a JSON string is skipped, a write that fails is dropped. It holds what you typed, so it is
private like a transcript: mode 0600 (an older file is made so), its folder created 0700.

The model remembered as the default lives beside it, for every face: ``larik.routing.remembered``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..llm import jsontext

__all__ = ["KEEP", "append", "load"]

KEEP = 500


def load(path: Path | None) -> list[str]:
    """The prompts in ``path``, oldest first (at most ``KEEP``); the file is cut back to them
    once it holds twice as many, so it does not grow without end."""
    if path is None:
        return []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    if len(lines) > 2 * KEEP:
        try:
            path.write_text("\n".join(lines[-KEEP:]) + "\n", encoding="utf-8")
        except OSError:
            pass
    out = []
    for line in lines[-KEEP:]:
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, str):
            out.append(item)
    return out


def append(path: Path | None, text: str) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o600)
        with open(fd, "a", encoding="utf-8") as f:
            os.fchmod(fd, 0o600)
            f.write(jsontext.dumps(text, ensure_ascii=False) + "\n")
    except OSError:
        pass
