"""Larik's themes: the built-in dark and light ones, Textual's own, and the user's
``[tui.themes.NAME]`` — all of them Textual :class:`~textual.theme.Theme` objects, registered
with ``App.register_theme`` and chosen with ``App.theme``.

Larik's own colours are CSS variables (:data:`VARIABLES`: the conversation, diffs, tool cards,
the status line) that ``app.tcss`` uses; a theme may set them in ``Theme.variables``, and one
that does not (Textual's) gets them from its own colours (:func:`with_defaults`), so every
theme colours every part. Code blocks are highlighted with the theme's ``larik-code`` Pygments
style. What Rich draws (diffs, code) is not CSS: :func:`palette` turns the variables into the
styles :mod:`larik.tui.render` draws with, and the app redraws the conversation when the theme
changes (``larik/tui/looks.py``).

This module is imported before the first frame (the default theme is one of its two), so it
holds data and small functions only; the rest (``auto``, custom themes, the picker) lives in
``looks.py``, imported once the config asks for it or ``/theme`` is typed.
"""

from __future__ import annotations

from textual.theme import Theme

__all__ = ["AUTO", "BUILTIN", "DARK", "LIGHT", "VARIABLES", "with_defaults"]

DARK, LIGHT, AUTO = "larik-dark", "larik-light", "auto"

#: Larik's CSS variable -> (its key in ``[tui.themes.NAME]``, the Textual variable it defaults
#: to in a theme that does not set it)
VARIABLES: dict[str, tuple[str, str]] = {
    "larik-user": ("user", "boost"),
    "larik-reply": ("reply", "foreground"),
    "larik-thinking": ("thinking", "text-muted"),
    "larik-diff-added": ("diff_added", "success"),
    "larik-diff-removed": ("diff_removed", "error"),
    "larik-diff-hunk": ("diff_hunk", "accent"),
    "larik-tool-border": ("tool_border", "primary"),
    "larik-tool-error": ("tool_error", "error"),
    "larik-tool-denied": ("tool_denied", "warning"),
    "larik-status-background": ("status_background", "panel"),
    "larik-status-text": ("status_text", "text-muted"),
}
CODE = "larik-code"  # the Pygments style of code blocks (a variable no CSS rule reads)
CODE_DEFAULTS = {True: "monokai", False: "friendly"}  # by Theme.dark

BUILTIN: tuple[Theme, ...] = (
    Theme(  # Textual's default colours (what Larik always looked like), diffs in soft hues
        name=DARK,
        primary="#0178D4",
        secondary="#004578",
        warning="#ffa62b",
        error="#ba3c5b",
        success="#4EBF71",
        accent="#ffa62b",
        foreground="#e0e0e0",
        dark=True,
        variables={
            "larik-diff-added": "#6BCB77",
            "larik-diff-removed": "#E06C75",
            "larik-diff-hunk": "#56B6C2",
            CODE: "monokai",
        },
    ),
    Theme(  # for a light terminal: dark text, diffs and code in GitHub's light hues
        name=LIGHT,
        primary="#004578",
        secondary="#0178D4",
        warning="#9a6700",
        error="#CF222E",
        success="#1A7F37",
        accent="#8250DF",
        foreground="#1F2328",
        background="#FFFFFF",
        surface="#F6F8FA",
        panel="#EAEEF2",
        dark=False,
        variables={
            "larik-diff-added": "#1A7F37",
            "larik-diff-removed": "#CF222E",
            "larik-diff-hunk": "#0969DA",
            "larik-user": "#EAEEF2",
            CODE: "friendly",
        },
    ),
)


def with_defaults(variables: dict[str, str], dark: bool) -> dict[str, str]:
    """``variables`` (a theme's CSS variables) with each of Larik's it does not set taken from
    the Textual colour it stands for (:data:`VARIABLES`), and a code style for its darkness."""
    for name, (_key, base) in VARIABLES.items():
        if name not in variables and base in variables:
            variables[name] = variables[base]
    variables.setdefault(CODE, CODE_DEFAULTS[dark])
    return variables
