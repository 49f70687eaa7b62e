"""Applying ``[tui]``'s theme: custom themes, ``auto``, and redrawing what Rich drew.

Imported after the first frame, only when the config asks for something other than the default
theme or ``/theme`` is typed (the default theme is in :mod:`larik.tui.themes` and costs
nothing). A theme change is ``App.theme = name`` (Textual re-applies the CSS); what is not CSS
— diff colours and the code style, :data:`larik.tui.render.PALETTE` — follows in
:func:`theme_changed`, which also makes every conversation item render again.
"""

from __future__ import annotations

import difflib
import os
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any

from rich.style import Style
from textual.color import Color, ColorParseError
from textual.theme import Theme

from . import render, themes

if TYPE_CHECKING:
    from textual.app import App

__all__ = [
    "apply_theme",
    "background_is_dark",
    "build_theme",
    "register_custom",
    "theme_changed",
    "theme_names",
]

_THEME_FIELDS = {f.name for f in fields(Theme)} - {"name", "variables", "ansi"}


def background_is_dark(env: dict[str, str] | None = None) -> bool | None:
    """What ``auto`` goes by: the terminal's background as it answered OSC 11 at start
    (``larik/tui/background.py``), else as ``COLORFGBG`` gives it ("15;0": light text on colour
    0, a dark background; rxvt, Konsole, iTerm2 and others set it); None when unknown."""
    from .background import ANSWER

    if env is None and ANSWER[0] is not None:
        return ANSWER[0]
    value = (env if env is not None else os.environ).get("COLORFGBG", "")
    last = value.rsplit(";", 1)[-1].strip()
    if not last.isdigit():
        return None
    return int(last) not in (7, 15) and not 9 <= int(last) <= 14


def build_theme(name: str, table: Any, base: Theme) -> Theme:
    """``[tui.themes.NAME]`` as a Textual theme: ``base`` with the colours it sets (Textual's
    and Larik's :data:`~larik.tui.themes.VARIABLES`). A colour Textual cannot parse is a
    ``ValueError`` naming the key."""
    values = {k: v for k, v in table.model_dump().items() if v not in ("", None)}
    for key, value in values.items():
        if key in ("base", "dark", "code"):
            continue
        try:
            Color.parse(value)
        except ColorParseError:
            raise ValueError(f"tui.themes.{name}.{key}: {value!r} is not a colour") from None
    variables = dict(base.variables)
    for var, (key, _base) in themes.VARIABLES.items():
        if key in values:
            variables[var] = values[key]
    if "code" in values:
        variables[themes.CODE] = values["code"]
    own = {k: v for k, v in values.items() if k in _THEME_FIELDS}
    return replace(base, name=name, variables=variables, **own)


def register_custom(app: App[Any], config_themes: dict[str, Any]) -> list[str]:
    """Register each ``[tui.themes.NAME]`` (a theme may build on one defined before it);
    the one-line problems, for the conversation."""
    problems = []
    pending = dict(config_themes)
    while pending:
        progress = False
        for name, table in list(pending.items()):
            base = app.get_theme(table.base)
            if base is None and table.base in pending:
                continue  # its base comes later in the loop
            del pending[name]
            progress = True
            if base is None:
                problems.append(f"tui.themes.{name}.base: {_unknown(app, table.base)}")
                continue
            try:
                app.register_theme(build_theme(name, table, base))
            except ValueError as e:
                problems.append(str(e))
        if not progress:  # bases that name each other
            problems.append(f"tui.themes: {', '.join(pending)}: their bases name each other")
            break
    return problems


def _unknown(app: App[Any], name: str) -> str:
    near = difflib.get_close_matches(name, theme_names(app), n=1, cutoff=0.6)
    return f"unknown theme {name!r}" + (f" (did you mean {near[0]!r}?)" if near else "")


def theme_names(app: App[Any]) -> list[str]:
    """What ``/theme`` offers: Larik's two, ``auto``, the user's, then Textual's."""
    builtin = [t.name for t in themes.BUILTIN]
    rest = sorted(n for n in app.available_themes if n not in builtin and n != "textual-ansi")
    mine = [n for n in rest if not _textuals(n)]
    return [*builtin, themes.AUTO, *mine, *(n for n in rest if _textuals(n))]


def _textuals(name: str) -> bool:
    from textual.theme import BUILTIN_THEMES

    return name in BUILTIN_THEMES


def resolve(name: str) -> str:
    """The theme ``name`` stands for: ``auto`` is larik-dark or larik-light by the terminal's
    background (dark when it is not known)."""
    if name != themes.AUTO:
        return name
    return themes.LIGHT if background_is_dark() is False else themes.DARK


def apply_theme(app: App[Any], name: str) -> str:
    """Make ``name`` (or what ``auto`` stands for) the theme; "" or the one-line problem (the
    theme stays as it was)."""
    real = resolve(name)
    if app.get_theme(real) is None:
        return _unknown(app, name)
    app.theme = real
    return ""


def theme_changed(app: App[Any], root: Any) -> None:
    """After ``App.theme`` changed (Textual's ``theme_changed_signal``): the palette Rich draws
    diffs and code with, from the new theme's variables; every rendered item of ``root`` (the
    chat screen) drawn again."""
    v = app.theme_variables
    render.PALETTE[0] = render.Palette(
        added=_style(v.get("larik-diff-added")),
        removed=_style(v.get("larik-diff-removed")),
        hunk=_style(v.get("larik-diff-hunk")),
        code=_code(v.get(themes.CODE, "")),
    )
    from .widgets.rendered_lines import RenderedLines

    for widget in root.query(RenderedLines):
        widget.restyle()
    conv = getattr(root, "conv", None)
    if conv is not None:
        conv.restyled()


def _style(value: str | None) -> Style:
    try:
        return Style(color=Color.parse(value or "").rich_color)
    except ColorParseError:
        return Style()


def _code(name: str) -> str:
    """A Pygments style name Pygments knows, else the default one."""
    from pygments.styles import get_style_by_name
    from pygments.util import ClassNotFound

    try:
        get_style_by_name(name)
    except ClassNotFound:
        return render.CODE_THEME
    return name
