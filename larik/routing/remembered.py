"""The model remembered as the default: the first one picked in the TUI when there was none,
or the session's after ``/model default``. One file per user, in the state folder
(``<state>/tui-model.json``: ``{"model": "provider/model"}``, private like the prompt history).

Every face reads it through the one rule (:func:`larik.routing.targets.default_model`); only
the TUI writes it. Reading never fails (an unreadable file remembers nothing), a write is atomic
and a failed one is dropped. Light: the ``json`` module and the locations, nothing else, so
``larik acp``'s early ``initialize`` answer reads it too.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..llm import jsontext

__all__ = ["FILE", "path", "read", "write"]

FILE = "tui-model.json"  # the TUI's name for it since round one: an older pick still counts


def path() -> Path:
    """Where the remembered model is kept (it may not exist)."""
    from ..locations import state_dir

    return state_dir() / FILE


def read(where: Path | None = None) -> str:
    """The model remembered ("" when none, or the file is unreadable)."""
    try:
        data = json.loads((where or path()).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return ""
    model = data.get("model") if isinstance(data, dict) else None
    return model.strip() if isinstance(model, str) and "/" in model else ""


def write(spec: str, where: Path | None = None) -> None:
    """Remember ``spec`` as the default (atomically, mode 0600; a failed write is dropped)."""
    if not spec:
        return
    target = where or path()
    tmp = target.with_name(f".{target.name}.{os.getpid()}")
    try:
        target.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with open(fd, "w", encoding="utf-8") as f:
            f.write(jsontext.dumps({"model": spec}) + "\n")
        os.replace(tmp, target)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
