"""Destructive calls need more than a guess; a Python file that no longer parses says so at once.

A confused model does damage with calls that validate: ``edit_file`` with ``old_string: "    1"``
and ``replace_all: true`` (112 replacements in one module), or a ``write_file`` that replaces a
module with a fragment. The file tools refuse, with the reason, unless the call says it means
it (``confirm_destructive: true``):

* ``replace_all`` with an ``old_string`` of fewer than ``MIN_PATTERN`` non-space characters that
  occurs more than once — a pattern that short matches far more than the model has in mind;
* an edit that would replace more than ``MAX_REPLACEMENTS`` occurrences;
* a write or edit that removes most (more than half) of the top-level ``def`` / ``class`` names
  of a file that had at least ``MIN_DEFS`` (Python's, and other languages that start a
  definition at column 0 with ``def``, ``class`` or ``function``).

After a write or edit of a ``.py`` / ``.pyi`` file, :func:`syntax_note` parses the new text
(``ast.parse``); the result then leads with the syntax error, line and message, so the model
fixes it in its next call rather than after the tests fail.
"""

from __future__ import annotations

import ast
import re

from ... import words
from ..pysyntax import UNPARSABLE
from . import ToolError

__all__ = [
    "CONFIRM",
    "MAX_REPLACEMENTS",
    "MIN_DEFS",
    "MIN_PATTERN",
    "check_defs",
    "check_edit",
    "syntax_note",
]

MIN_PATTERN = 8  # non-space characters a replace_all pattern needs
MAX_REPLACEMENTS = 20  # occurrences one edit may replace unconfirmed
MIN_DEFS = 3  # top-level definitions a file needs before "most of them vanish" counts
CONFIRM = "confirm_destructive"
_DEF = re.compile(
    r"^(?:async\s+def|def|class|(?:export\s+(?:default\s+)?)?(?:async\s+)?function\*?)"
    r"\s+([A-Za-z_$][\w$]*)",
    re.MULTILINE,
)
_PYTHON = (".py", ".pyi")
_SHOWN = 40


def _again(what: str) -> str:
    return f"{what}, or, if you really mean it, make the same call with {CONFIRM}: true"


def check_edit(old_string: str, count: int, replace_all: bool, shown: str) -> None:
    """Refuse an edit that replaces too much for what it names (ToolError with the reason)."""
    solid = len("".join(old_string.split()))
    if replace_all and count > 1 and solid < MIN_PATTERN:
        raise ToolError(
            f"refused: replace_all with old_string {_clip(old_string)!r} "
            f"({words.count(solid, 'non-space character')}) would replace {count} places in "
            f"{shown}; a "
            "pattern that short matches far more than you mean. "
            + _again("Quote a longer, unique old_string (the whole line, with context)")
        )
    if count > MAX_REPLACEMENTS:
        raise ToolError(
            f"refused: this edit would replace {count} occurrences in {shown} (more than "
            f"{MAX_REPLACEMENTS}). " + _again("Edit the places you mean one at a time")
        )


def check_defs(old: str, new: str, shown: str) -> None:
    """Refuse a change that removes most of a file's top-level definitions."""
    before = _names(old)
    if len(before) < MIN_DEFS:
        return
    gone = [n for n in before if n not in set(_names(new))]
    if len(gone) * 2 <= len(before):
        return
    names = ", ".join(gone[:8]) + (f" and {len(gone) - 8} more" if len(gone) > 8 else "")
    raise ToolError(
        f"refused: this change would remove {len(gone)} of the {len(before)} top-level "
        f"definitions of {shown} ({names}); nothing was written. "
        + _again("Change only the part you mean with edit_file")
    )


def syntax_note(shown: str, old: str, new: str) -> str:
    """A line leading the result when a Python file does not parse after the change ("" when
    it does, or is not Python)."""
    if not shown.endswith(_PYTHON):
        return ""
    problem = _parse_error(new, shown)
    if not problem:
        return ""
    was = "still does not parse" if _parse_error(old, shown) else "no longer parses"
    return f"error: {shown} {was} as Python: {problem}; the change was written — fix it now"


def _parse_error(text: str, shown: str) -> str:
    try:
        ast.parse(text, filename=shown)
    except SyntaxError as e:  # IndentationError and TabError too
        where = f"line {e.lineno}" + (f", column {e.offset}" if e.offset else "")
        return f"{where}: {e.msg}"
    except UNPARSABLE as e:  # NUL bytes; nesting too deep (..pysyntax)
        return f"{type(e).__name__}: {' '.join(str(e).split())[:200]}"
    return ""


def _names(text: str) -> list[str]:
    return list(dict.fromkeys(m.group(1) for m in _DEF.finditer(text)))


def _clip(text: str) -> str:
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"
