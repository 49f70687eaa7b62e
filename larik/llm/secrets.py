"""Secrets Larik knows, masked by value wherever text leaves the process.

``remember(*values)`` records a key or header value (``resolve_endpoint`` records every one it
resolves); ``mask(text)`` replaces each recorded value in ``text`` with ``***``. Values shorter
than :data:`MIN_LENGTH` are not recorded: masking ``"k"`` everywhere would garble every message.
"""

from __future__ import annotations

import threading

__all__ = ["MIN_LENGTH", "forget_all", "mask", "remember"]

MIN_LENGTH = 8
MASK = "***"

_lock = threading.Lock()
_values: frozenset[str] = frozenset()
_ordered: tuple[str, ...] = ()


def remember(*values: str | None) -> None:
    """Record secret values (None, empty and short values are ignored)."""
    global _values, _ordered
    new = {v.strip() for v in values if v and len(v.strip()) >= MIN_LENGTH} - _values
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


def forget_all() -> None:
    """Drop every recorded value (tests)."""
    global _values, _ordered
    with _lock:
        _values, _ordered = frozenset(), ()
