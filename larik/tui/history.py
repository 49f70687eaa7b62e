"""What the TUI keeps between runs, per user, in the state directory.

The prompt history file: one JSON string per line, the newest last, kept to ``KEEP`` lines.
Reading or writing it never fails the app: an unreadable file is an empty history, a line that
is not a JSON string is skipped, a write that fails is dropped. It holds what you typed, so it is
private like a transcript: mode 0600 (an older file is made so), its folder created 0700.

The model last picked (``/model``), beside it in ``MODEL_FILE``: ``{"model": "provider/model"}``.
A start with no ``--model`` and no ``model`` in the config uses it.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..llm import jsontext

__all__ = ["KEEP", "MODEL_FILE", "append", "last_model", "load", "remember_model"]

KEEP = 500
MODEL_FILE = "tui-model.json"


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


def last_model(path: Path | None) -> str:
    """The model remembered in ``path`` ("" when none, or the file is unreadable)."""
    if path is None:
        return ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    model = data.get("model") if isinstance(data, dict) else None
    return model.strip() if isinstance(model, str) and "/" in model else ""


def remember_model(path: Path | None, spec: str) -> None:
    """Remember ``spec`` as the model last picked (atomically; a failed write is dropped)."""
    if path is None or not spec:
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}")
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
        with open(fd, "w", encoding="utf-8") as f:
            f.write(jsontext.dumps({"model": spec}) + "\n")
        os.replace(tmp, path)
    except OSError:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
