"""Text from others (a model's reply, a page, a hook's message) made safe to write to a terminal.

An escape sequence in such text is an instruction to the terminal, not text: OSC 52 sets the
user's clipboard, a title or screen sequence redraws what a question shows, SGR 8 hides what
follows. :data:`CONTROLS` maps every C0 and C1 control character but tab and newline to U+FFFD
(a carriage return, which can overwrite a line, is dropped): the TUI widens Rich's and Textual's
own tables with it (:mod:`larik.tui.render`), print mode applies it to what it writes to a
terminal (:mod:`larik.printmode`). A leaf: nothing but the standard library.
"""

from __future__ import annotations

__all__ = ["CONTROLS", "safe"]

CONTROLS: dict[int, str | None] = {
    **dict.fromkeys([*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0)], "\ufffd"),
    0x0D: None,
}


def safe(text: str) -> str:
    """``text`` with every control character of :data:`CONTROLS` replaced (or dropped)."""
    return text.translate(CONTROLS)
