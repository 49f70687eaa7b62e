"""JSON as Larik writes and reads it: only what RFC 8259 allows, in one place.

Python's ``json`` writes ``NaN``, ``Infinity`` and ``-Infinity`` for floats JSON cannot hold,
reads them back, and reads ``1e400`` as infinity: none of that is JSON, and a reader that
parses strictly (an editor over ACP, ``jq``, a program reading print mode's stream) stops on
it. Every JSON text Larik writes — the ACP wire, print mode's JSON and stream-json,
transcripts, hook input, state files, the commands' ``--json`` — goes through :func:`dumps`
(``json.dumps`` with ``allow_nan=False``), which raises :class:`NotJson` (a ``ValueError``)
naming where the number is instead of writing it; :func:`loads` reads what a peer sends by
the same rule. tests/test_jsontext.py walks the package so that no writer calls
``json.dumps`` itself. Imports nothing of Larik's (the ground floor: every layer may use it).
"""

from __future__ import annotations

import json
import math
from typing import IO, Any

__all__ = ["NotJson", "dump", "dumps", "loads"]


class NotJson(ValueError):
    """A value that has no JSON text (a NaN or an infinity in it, or a type JSON lacks)."""


def dumps(value: Any, **kwargs: Any) -> str:
    """``json.dumps(value, **kwargs)`` that refuses NaN and the infinities."""
    try:
        return json.dumps(value, allow_nan=False, **kwargs)
    except (ValueError, TypeError) as e:
        where = _not_finite(value, "$", 0)
        raise NotJson(f"{e}{f' ({where})' if where else ''}") from None


def dump(value: Any, fp: IO[str], **kwargs: Any) -> None:
    """:func:`dumps` into ``fp``: nothing is written when ``value`` has no JSON text."""
    fp.write(dumps(value, **kwargs))


def loads(text: str | bytes) -> Any:
    """JSON text as Python values; ``NaN``, ``Infinity`` and a number no double holds
    (``1e400``) are a ``ValueError``, as any other text that is not JSON."""
    return json.loads(text, parse_constant=_constant, parse_float=_number)


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _number(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is too large for a double")
    return value


def _not_finite(value: Any, path: str, depth: int) -> str:
    """Where in ``value`` the first float JSON cannot hold is (``$.usage.cost``), or ""."""
    if isinstance(value, float):
        return "" if math.isfinite(value) else f"{value!r} at {path}"
    if depth > 64:
        return ""
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, (list, tuple)):
        items = enumerate(value)
    else:
        return ""
    for k, v in items:
        found = _not_finite(v, f"{path}.{k}" if isinstance(k, str) else f"{path}[{k}]", depth + 1)
        if found:
            return found
    return ""
