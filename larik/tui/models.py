"""What the ``/model`` picker and ``/routing`` show of the models a session can use.

Which models those are is the session's (``larik.session.models.picker_entries``: every face
lists the same ones); here ``fuzzy_filter`` ranks them against what the user types, and the
window and price are formatted for the screen. Pure functions.
"""

from __future__ import annotations

from typing import Any

from ..session.models import ModelEntry, has_key, picker_entries
from ..words import count

__all__ = [
    "ModelEntry",
    "looked_text",
    "format_price",
    "format_window",
    "fuzzy_filter",
    "has_key",
    "picker_entries",
]


def _score(query: str, text: str) -> int | None:
    """Subsequence match score (higher is better); None when ``query`` is not a subsequence."""
    if not query:
        return 0
    t = text.lower()
    q = query.lower()
    if q in t:
        return 1000 - t.index(q) - len(t) // 10
    pos = -1
    score = 0
    for ch in q:
        nxt = t.find(ch, pos + 1)
        if nxt == -1:
            return None
        score -= nxt - pos - 1  # gaps cost
        pos = nxt
    return score - len(t) // 10


def fuzzy_filter(query: str, entries: list[ModelEntry]) -> list[ModelEntry]:
    scored = [
        (s, i, e) for i, e in enumerate(entries) if (s := _score(query.strip(), e.spec)) is not None
    ]
    scored.sort(key=lambda x: (-x[0], x[1]))
    return [e for _, _, e in scored]


def format_window(tokens: int | None) -> str:
    if not tokens:
        return "?"
    if tokens >= 1_000_000:  # 1,048,576 is "1M", not "1.04858M": five columns at most
        return f"{tokens / 1_000_000:.1f}".removesuffix(".0") + "M"
    return f"{tokens // 1000}k"


def format_price(inp: float | None, out: float | None) -> str:
    """``$3/$15`` per million tokens in/out; ``free`` for local; ``—`` when unknown."""
    if inp is None or out is None:
        return "—"
    if inp == 0 and out == 0:
        return "free"
    return f"${inp:g}/${out:g}"


def looked_text(local: list[Any]) -> str:
    """The model picker's footer once the search for local servers is over."""
    return f"{count(len(local), 'local model')} found" if local else "no local server answered"
