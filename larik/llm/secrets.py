"""Secrets Larik knows, masked by value wherever text leaves the process.

``remember(*values)`` records a key or header value: ``resolve_endpoint`` records the key and
headers of every provider it resolves, and ``remember_known`` (called by each ``resolve``) every
key Larik could read — the variables the registered providers and kinds declare, each
``api_key_env`` and ``api_key`` and header value of the config. ``mask(text)`` replaces each
recorded value (and its JSON-escaped form) with ``***``. It runs where text leaves the process:
every provider error (``errors.redact``), the transcript writer, print mode's stdout and stderr
(``MaskingWriter``). Values shorter than :data:`MIN_LENGTH` are not recorded: masking ``"k"``
everywhere would garble every message.
"""

from __future__ import annotations

import threading
from typing import Any

from . import jsontext
from .encodable import encodable as shown

__all__ = [
    "MIN_LENGTH",
    "MaskingWriter",
    "forget_all",
    "mask",
    "mask_head",
    "remember",
    "split_tail",
]

MIN_LENGTH = 8
MASK = "***"

_lock = threading.Lock()
_values: frozenset[str] = frozenset()
_ordered: tuple[str, ...] = ()


def remember(*values: str | None) -> None:
    """Record secret values (None, empty and short values are ignored)."""
    global _values, _ordered
    new = {v.strip() for v in values if v and len(v.strip()) >= MIN_LENGTH}
    new |= {jsontext.dumps(v)[1:-1] for v in new}  # as it stands inside a JSON string
    new -= _values
    if not new:
        return
    with _lock:
        _values = _values | new
        _ordered = tuple(sorted(_values, key=len, reverse=True))  # longest first


def mask(text: str) -> str:
    """``text`` with every recorded secret replaced by ``***``."""
    for value in _ordered:
        if value in text:
            text = text.replace(value, MASK)
    return text


def split_tail(text: str) -> tuple[str, str]:
    """``text`` as ``(safe, held)``: ``held`` is its longest end that could be the start of a
    recorded secret (the rest of it may come in the next piece of a stream), ``safe`` the rest.
    Text sent in pieces is masked whole when each piece holds back its ``held`` part."""
    held = 0
    for value in _ordered:
        for n in range(min(len(value) - 1, len(text)), held, -1):
            if text.endswith(value[:n]):
                held = n
                break
    return (text[: len(text) - held], text[len(text) - held :]) if held else (text, "")


HEAD_MIN = 4  # a shorter piece of a secret at the start of a cut stream is left alone


def mask_head(text: str) -> str:
    """``text`` whose start may be the end of a secret cut off before it (a stream that dropped
    what came first): that end, when at least :data:`HEAD_MIN` characters, becomes ``***``."""
    best = 0
    for value in _ordered:
        for n in range(min(len(value) - 1, len(text)), max(best, HEAD_MIN - 1), -1):
            if text.startswith(value[-n:]):
                best = n
                break
    return MASK + text[best:] if best else text


def forget_all() -> None:
    """Drop every recorded value (tests)."""
    global _values, _ordered
    with _lock:
        _values, _ordered = frozenset(), ()


class MaskingWriter:
    """A text stream whose every write is masked (print mode's stdout and stderr), and
    encodable: a lone surrogate is written as its escape (:mod:`larik.llm.encodable`), never an
    exception (a JSON line has none left: :func:`larik.others_text.encodable_json`)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(mask(shown(text)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)
