"""The ``[tui]`` table: how the TUI looks (its theme, themes of your own) and what its keys do.
User config only. The colours are checked here and parsed for good by the TUI.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import Field, field_validator

from .tables import Strict

__all__ = ["TuiConfig", "TuiThemeConfig"]


#: a colour as Textual's CSS takes it: ``#rgb``, ``#rrggbb`` (and with alpha), ``rgb(…)``,
#: ``hsl(…)`` or a name (``red``, ``ansi_bright_blue``); parsed for good by the TUI
_COLOUR = re.compile(
    r"#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|(?:rgb|hsl)a?\([^()]*\)|[a-z_]+"
)


class TuiThemeConfig(Strict):
    """``[tui.themes.NAME]``: a theme of your own, on top of ``base``; an unset colour is the
    base theme's (docs/tui.md#themes)."""

    base: str = "larik-dark"
    """The theme it starts from: larik-dark, larik-light, one of Textual's, or another of yours."""
    dark: bool | None = None
    """Whether it is a dark theme (unset: the base's)."""
    primary: str = ""
    """Borders, the prompt's frame, highlights."""
    secondary: str = ""
    """Secondary highlights."""
    accent: str = ""
    """The focused prompt's frame, accents."""
    foreground: str = ""
    """Text."""
    background: str = ""
    """The screen's background."""
    surface: str = ""
    """Dialogs' and lists' background."""
    panel: str = ""
    """Panels' background."""
    warning: str = ""
    """Warnings."""
    error: str = ""
    """Errors."""
    success: str = ""
    """Success marks."""
    user: str = ""
    """The background of your prompts in the conversation."""
    reply: str = ""
    """The text of the model's replies."""
    thinking: str = ""
    """The text of thinking blocks."""
    diff_added: str = ""
    """Added lines in diffs."""
    diff_removed: str = ""
    """Removed lines in diffs."""
    diff_hunk: str = ""
    """Diff hunk headers (``@@ … @@``)."""
    tool_border: str = ""
    """A tool card's left border."""
    tool_error: str = ""
    """A failed tool card's border."""
    tool_denied: str = ""
    """A refused tool card's border."""
    status_background: str = ""
    """The status line's background."""
    status_text: str = ""
    """The status line's text."""
    code: str = ""
    """The Pygments style code blocks are highlighted with ("monokai", "friendly", …)."""

    @field_validator("*")
    @classmethod
    def _check_colour(cls, value: Any, info: Any) -> Any:
        if info.field_name in ("base", "dark", "code") or not value:
            return value
        if not _COLOUR.fullmatch(str(value).strip()):
            raise ValueError(f"{value!r} is not a colour (#rrggbb, rgb(…), hsl(…) or a name)")
        return value


class TuiConfig(Strict):
    """``[tui]``: how the TUI looks and what its keys do (docs/tui.md). User config only."""

    theme: str = "larik-dark"
    """larik-dark, larik-light, auto (follows the terminal's background), one of Textual's
    themes (nord, gruvbox, …) or one of ``[tui.themes]``."""
    themes: dict[str, TuiThemeConfig] = Field(default_factory=dict)
    """Themes of your own, by name."""
    vim: bool = False
    """Edit the prompt vim-style (normal and insert modes); ``/vim`` toggles it and saves it."""
    notify: Literal["auto", "off", "bell", "osc"] = "auto"
    """How a turn's end, a permission question or a finished job reaches you when you are not
    looking: auto (OSC 9 / OSC 777 where the terminal shows them, else the bell), osc, bell, off."""
    print_on_exit: bool = False
    """On leaving, write the conversation as plain text to the terminal, into its scrollback."""
    status_line: str = ""
    """A command whose first line of output (the session's state as JSON on its stdin, as
    Claude Code gives it) is shown in the status line; run on a change, at most once a second."""
    status_line_mode: Literal["append", "replace"] = "append"
    """Where that line goes: after Larik's own status line, or in its place."""
    notify_after: float = Field(default=30.0, ge=0, le=3600)
    """Seconds after which it notifies you even though the terminal has focus and you have not
    touched a key (0: only when the terminal is not focused)."""
