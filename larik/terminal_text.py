"""Text from others (a model's reply, a page, a hook's message, a task's summary) made safe to
write to a terminal: shown as it is, never obeyed.

An escape sequence in such text is an instruction to the terminal, not text: OSC 52 sets the
user's clipboard, a title or screen sequence redraws what a question shows, SGR 8 hides what
follows. And a bidi control (U+202E RIGHT-TO-LEFT OVERRIDE, the isolates) makes a bidi-capable
terminal draw a command in another order than the one that runs, while zero-width characters
make two different words look the same. :data:`TABLE` is the one table for both:

* :data:`CONTROLS` maps every C0 and C1 control character but tab and newline to U+FFFD (a
  carriage return, which can overwrite a line, is dropped);
* :data:`INVISIBLE` writes each bidi control and zero-width character as the escape that names
  it (U+202E as ``\\u202e``), so it is seen and cannot act.

The TUI widens Rich's and Textual's own tables with it (:mod:`larik.tui.render`), print mode and
the plain commands apply it to what they write to a terminal (:func:`terminal`), bench to what
it draws of a task or a result. A leaf: nothing but the standard library.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import IO, Any, TypeVar, cast

__all__ = [
    "CONTROLS",
    "INVISIBLE",
    "PIPED_WIDTH",
    "TABLE",
    "is_terminal",
    "output_width",
    "safe",
    "safe_output",
    "terminal",
]

CONTROLS: dict[int, str | None] = {
    **dict.fromkeys([*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)], "\ufffd"),
    0x0D: None,
}

_BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_ZERO_WIDTH = [0x180E, *range(0x200B, 0x200E), *range(0x2060, 0x2065), 0xFEFF]
_SEPARATORS = [0x2028, 0x2029]  # LINE and PARAGRAPH SEPARATOR: a break the terminal may not draw
INVISIBLE: dict[int, str | None] = {c: f"\\u{c:04x}" for c in _BIDI + _ZERO_WIDTH + _SEPARATORS}

TABLE: dict[int, str | None] = {**CONTROLS, **INVISIBLE}


def safe(text: str) -> str:
    """``text`` with every character of :data:`TABLE` replaced (or dropped)."""
    return text.translate(TABLE)


def is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError, OSError):
        return False


PIPED_WIDTH = 160  # a table written to a pipe or a file: no terminal says how wide to be


def output_width(stream: IO[str] | None = None) -> int:
    """How wide a plain command's table may be: ``COLUMNS`` when set, else the terminal's
    width, else (a pipe, a file) :data:`PIPED_WIDTH` — not the 80 a library guesses, which
    squeezed ``larik bench --list``'s summaries into 16 columns."""
    import os
    import shutil

    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = stream if stream is not None else sys.stdout
    if is_terminal(stream):
        return shutil.get_terminal_size().columns
    return PIPED_WIDTH


class _TerminalSafe:
    """A terminal's stream: every write made safe."""

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(safe(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def terminal(stream: IO[str]) -> IO[str]:
    """``stream`` with every write made safe when it is a terminal; as it is otherwise (a pipe
    or a file gets the text as it came)."""
    return cast(IO[str], _TerminalSafe(stream)) if is_terminal(stream) else stream


F = TypeVar("F", bound=Callable[..., Any])


def safe_output(command: F) -> F:
    """A plain command (no Rich, no TUI) whose ``sys.stdout`` and ``sys.stderr`` are
    :func:`terminal` while it runs: what it prints of a project, a model or a server is shown
    as it is."""

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        out, err = sys.stdout, sys.stderr
        sys.stdout, sys.stderr = terminal(out), terminal(err)
        try:
            return command(*args, **kwargs)
        finally:
            sys.stdout, sys.stderr = out, err

    run.safe_output = True  # type: ignore[attr-defined]  # tests walk the commands for it
    return cast(F, run)
