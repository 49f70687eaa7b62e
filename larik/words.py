"""Counted nouns in what Larik says: ``1 tool``, ``2 tools`` — one helper, used everywhere.

``count(n, "tool")`` → ``"1 tool"`` / ``"3 tools"``; a phrase pluralizes its last word
(``count(n, "earlier line")``); an irregular plural is given (``count(n, "entry", "entries")``).
Imports nothing: every layer above ``llm`` may use it. ``tests/test_words.py`` walks the
package's f-strings so a new ``{n} files`` or ``file(s)`` fails.
"""

from __future__ import annotations


def plural(n: int, noun: str, many: str = "") -> str:
    """``noun`` as it goes with ``n`` (``tool`` / ``tools``), without the number."""
    return noun if n == 1 else many or noun + "s"


def count(n: int, noun: str, many: str = "") -> str:
    """``1 tool``, ``3 tools``, ``1,200 files`` (thousands grouped)."""
    return f"{n:,} {plural(n, noun, many)}"
