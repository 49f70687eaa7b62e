"""Parsers of others' text, bounded: what a test printed, a model's reply or its tool-call
arguments, a server's answer, a file the project holds. Such text may be nested far deeper than
a parser recurses (a probe line of 5,000 brackets: ``RecursionError``; 100,000 minus signs:
``MemoryError``), hold a NUL (``ValueError``), or be megabytes long. None of that may end a
turn: every parse of others' text goes through one of these, and each failure is one
exception, :class:`Unreadable` (a ``ValueError``, so a caller's ``except ValueError`` holds).

* :func:`json_value` — ``json.loads`` within :data:`MAX_JSON` characters;
* :func:`literal` — ``ast.literal_eval`` within :data:`MAX_LITERAL`;
* :func:`python` — ``ast.parse``, None when it does not parse (:data:`UNPARSABLE`);
* :func:`unparse` — ``ast.unparse``, "" when the tree is too deep to write back.

In the model layer, the lowest, because it parses a model's replies too: every layer may use
it. A leaf: nothing but the standard library.
"""

from __future__ import annotations

import ast
from typing import Any

from . import jsontext

__all__ = [
    "MAX_JSON",
    "MAX_LITERAL",
    "UNPARSABLE",
    "Unreadable",
    "json_value",
    "literal",
    "python",
    "unparse",
]

MAX_JSON = 16 << 20  # characters (or bytes) of one JSON text read
MAX_LITERAL = 100_000  # characters of one Python literal read

#: what a parser raises for text it cannot read: too deep, too big, not the language
UNPARSABLE: tuple[type[Exception], ...] = (
    SyntaxError,
    ValueError,
    TypeError,
    RecursionError,
    MemoryError,
)


class Unreadable(ValueError):
    """Others' text that does not parse within the bounds; says why in one line."""


def json_value(text: str | bytes | bytearray, limit: int = MAX_JSON) -> Any:
    """``json.loads(text)`` by JSON's own rule (:func:`larik.llm.jsontext.loads`: no NaN, no
    infinity); :class:`Unreadable` when it is longer than ``limit``, not JSON, or nested deeper
    than the decoder goes."""
    if len(text) > limit:
        raise Unreadable(f"{len(text):,} characters of JSON; at most {limit:,} are read")
    try:
        return jsontext.loads(
            bytes(text) if isinstance(text, bytearray) else text
        )  # strict: NaN, Infinity and 1e400 are no JSON
    except (ValueError, RecursionError, MemoryError) as e:
        raise Unreadable(_why(e)) from None


def literal(text: str, limit: int = MAX_LITERAL) -> Any:
    """``ast.literal_eval(text)``; :class:`Unreadable` when it is longer than ``limit``, no
    literal, or too deep."""
    if len(text) > limit:
        raise Unreadable(f"{len(text):,} characters of a literal; at most {limit:,} are read")
    try:
        return ast.literal_eval(text)
    except UNPARSABLE as e:
        raise Unreadable(_why(e)) from None


def python(text: str, filename: str = "<unknown>") -> ast.Module | None:
    """The module ``text`` parses to, or None when it does not parse (:data:`UNPARSABLE`)."""
    try:
        return ast.parse(text, filename=filename)
    except UNPARSABLE:
        return None


def unparse(node: ast.AST) -> str:
    """``ast.unparse(node)``, or "" when the tree is too deep to write back."""
    try:
        return ast.unparse(node)
    except (RecursionError, MemoryError, ValueError):
        return ""


def _why(e: BaseException) -> str:
    if isinstance(e, RecursionError):
        return "nested too deeply to read"
    if isinstance(e, MemoryError):
        return "too large to read"
    return " ".join(str(e).split())[:200] or type(e).__name__
