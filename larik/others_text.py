"""Text from others, bounded and made safe by one rule: what every channel that brings another
party's text to the model or the screen calls.

Others' text is whatever Larik did not write and a model did not just say: a command's output
(the bash tool, a background job, a command run in an editor's terminal), an MCP server's
results, errors, names and descriptions, a language server's diagnostics, a fetched page, a
hook's output and its JSON fields, an editor's answers over ACP, a subagent's report. It may be
megabytes long (a diagnostic ``code`` of 7 MB), and it may hold what acts on a terminal or
misleads a reader: ``ESC]52`` (the clipboard), a bidi override (U+202E), NULs, lone
surrogates (which no model API and no UTF-8 file takes). So each channel gives it on as
:func:`bounded` makes it:

* at most ``limit`` characters (the channel's own bound, named where it is read), the head or the tail kept
  as the channel needs (a command's errors are at its end), and one note saying how long it
  was, so the model knows that something was left out;
* cleaned by :func:`clean`: a complete colour or cursor sequence (CSI) is dropped, every other
  control character but tab and newline is U+FFFD, a bidi control or zero-width character is
  the escape that names it (:data:`larik.terminal_text.TABLE`), and a lone surrogate is
  ``\\xNN`` or ``\\udNNN`` (:func:`larik.paths.shown`).

:func:`one_line` is the same for a name or a code shown in a line, :func:`short` for a
description (its lines kept). The tool
runner applies :func:`bounded` to every tool result at :data:`MAX_RESULT` as the last step
(so a new tool cannot forget it); a file's own text (``read_file``, ``grep``) is bounded but
keeps its characters, which an edit must quote. :func:`encodable_json` is the writers' half
of the rule: a JSON line with a lone surrogate in it is still written, never an exception.
A leaf: the standard library and two leaves.
"""

from __future__ import annotations

import re
from typing import Literal

from .paths import shown
from .terminal_text import TABLE

__all__ = ["MAX_RESULT", "Keep", "bounded", "clean", "encodable_json", "one_line", "short"]

Keep = Literal["head", "tail"]

MAX_RESULT = 120_000  # characters of any one tool result the model gets (read_file's page fits)

# a complete escape sequence, drawn by no one here, so dropped whole: CSI (colours, cursor
# moves), OSC (a title, ESC]52's clipboard) and the string sequences (DCS, SOS, PM, APC) up to
# their terminator, and the two-character ones (ESC 7, ESC =, …). An unended one is left: its
# ESC becomes U+FFFD like any other control character
_ESCAPE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]*\x1b\\"
    r"|\x1b[ -/]*[0-~]"
)


def clean(text: str) -> str:
    """``text`` with nothing in it that acts on a terminal or hides from a reader, and nothing
    unencodable; tab and newline kept. A carriage return does what it does on a terminal (the
    text after it is written over the line from its start: a progress bar reads as its last
    state), and is then gone."""
    if "\x1b" in text:
        text = _ESCAPE.sub("", text)
    if "\r" in text:
        text = "\n".join(_overwritten(line) for line in text.split("\n"))
    return shown(text.translate(TABLE))


def _overwritten(line: str) -> str:
    """One line as a terminal leaves it after its carriage returns."""
    if "\r" not in line:
        return line
    shown_: list[str] = []
    for piece in line.split("\r"):
        shown_[: len(piece)] = piece
    return "".join(shown_)


def _end(text: str, limit: int, keep: Keep) -> str:
    return text[:limit] if keep == "head" else text[len(text) - limit :]


def bounded(text: str, limit: int, keep: Keep = "head", *, exact: bool = False) -> str:
    """``text`` cleaned (:func:`clean`) and cut to ``limit`` characters, the ``keep`` end kept,
    with a note saying how long it was when anything was left out. Never slower than the
    bound: the text is cut before it is cleaned. ``exact``: a file's own text, whose
    characters are kept (but lone surrogates)."""
    total = len(text)
    piece = _end(text, limit, keep)
    piece = shown(piece) if exact else clean(piece)
    if total <= limit and len(piece) <= limit:
        return piece
    if len(piece) > limit:  # escapes made it longer than the bound
        piece = _end(piece, limit, keep)
    side = "first" if keep == "head" else "last"
    note = f"[… cut: {total:,} characters in all; the {side} {len(piece):,} as shown here]"
    return f"{piece}\n{note}" if keep == "head" else f"{note}\n{piece}"


def one_line(text: object, limit: int) -> str:
    """``text`` as one line of at most ``limit`` characters (…-ended when cut), cleaned: a
    server's name, a diagnostic's code, a description shown in a list."""
    raw = str(text if text is not None else "")[: limit * 4]  # whitespace runs count once
    line = clean(" ".join(raw.split()))
    return line if len(line) <= limit and len(raw) < limit * 4 else line[: limit - 1] + "…"


def short(text: object, limit: int) -> str:
    """``text`` cleaned, at most ``limit`` characters (…-ended when cut), its lines kept: a
    description a list shows whole."""
    raw = str(text if text is not None else "")
    line = clean(raw[:limit])
    return line if len(line) <= limit and len(raw) <= limit else line[: limit - 1] + "…"


_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable_json(text: str) -> str:
    """JSON text (``json.dumps(…, ensure_ascii=False)``'s) that UTF-8 can always encode: a
    lone surrogate, which can stand only inside a string there, becomes the text of its escape
    (it reads back as the six characters ``\\udcff``, never as a surrogate again). What every
    writer of JSON lines calls: a transcript, print mode's stdout."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(lambda m: f"\\\\u{ord(m[0]):04x}", text)
